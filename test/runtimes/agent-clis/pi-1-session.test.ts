// @module-tag agent-cli
// @slow: pi 1.x's sessions continued across attempts, each attempt a real pi on Node 22
import { sessionSuite } from "./session-suite.js";

sessionSuite("pi 1.x");
