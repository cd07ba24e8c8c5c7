// @module-tag agent-cli
// @slow: pi 0.73's sessions continued across attempts, each attempt a real pi
import { sessionSuite } from "./session-suite.js";

sessionSuite("pi 0.73 (bundled)");
