// @module-tag agent-cli
import { sessionSuite } from "./session-suite.js";

sessionSuite("codex");
