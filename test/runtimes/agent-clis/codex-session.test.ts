// @module-tag agent-cli
// @slow: Codex's sessions continued across attempts, each attempt a real Codex
import { sessionSuite } from "./session-suite.js";

sessionSuite("codex");
