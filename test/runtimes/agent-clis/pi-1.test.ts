// @module-tag agent-cli
// @slow: the agent CLI suite's 17 tests against real pi 1.x on Node 22 and the scripted model
import { agentCliSuite } from "./agent-cli-suite.js";

agentCliSuite("pi 1.x");
