// The Crew a CLI command works with, its runs traced when the `OTEL_*` variables ask for it.

import type { Project } from "../../config/project.js";
import { Crew } from "../../engine/crew.js";
import type { CrewOptions } from "../../engine/options.js";
import { runTracing, withTracing } from "../tracing/run-tracing.js";
import { printError } from "./print.js";

function warn(message: string): void {
	printError(`crew: warning: ${message}\n`);
}

/**
 * The Crew a command works with, `project`'s by default the one the working directory is in: its
 * runs traced when this process's `OTEL_*` variables ask for it, whichever command writes their
 * events (a runner, a cancel, a fork).
 */
export function openCrew(project: Project, options: Omit<CrewOptions, "project"> = {}): Crew {
	return new Crew(withTracing({ project, ...options }, runTracing(project.dbFile, warn)));
}
