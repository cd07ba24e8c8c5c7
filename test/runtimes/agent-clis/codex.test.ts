// @module-tag agent-cli
// @slow: the agent CLI suite's 17 tests against real Codex on the scripted model
import { agentCliSuite } from "./agent-cli-suite.js";

agentCliSuite("codex");
