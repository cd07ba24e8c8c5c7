// @module-tag agent-cli
import { sessionSuite } from "./session-suite.js";

sessionSuite("pi 1.x");
