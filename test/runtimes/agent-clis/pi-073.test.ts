// @module-tag node22
// @module-tag agent-cli
// @slow: the agent CLI suite's 17 tests against real pi 0.73 on the scripted model
import { agentCliSuite } from "./agent-cli-suite.js";

agentCliSuite("pi 0.73 (bundled)");
