// The version of crew, as its package.json gives it, by the name the CLI's modules know it by.

export { crewVersion as version } from "../../config/crew-package.js";
