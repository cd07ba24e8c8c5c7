// @module-tag agent-cli
// @slow: Claude Code's sessions continued across attempts, each attempt a real Claude Code
import { sessionSuite } from "./session-suite.js";

sessionSuite("claude");
