// @module-tag node22
// @module-tag agent-cli
import { agentCliSuite } from "./agent-cli-suite.js";

agentCliSuite("pi 0.73 (bundled)");
