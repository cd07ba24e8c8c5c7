// @module-tag agent-cli
import { agentCliSuite } from "./agent-cli-suite.js";

agentCliSuite("claude");
