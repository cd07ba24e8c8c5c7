// Running a CLI command to its exit code: an error becomes one line, and bad input exits 2.

import { existsSync } from "node:fs";
import { findProject } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { fileErrorText } from "../shared/file-errors.js";
import { Exit } from "./exit-codes.js";
import { takeBackStore } from "./fresh-store.js";
import { printError } from "./print.js";

/**
 * Errors that say what the command was given is wrong (HTTP answers them 400 or 404): they exit
 * as bad input, not as a failure.
 */
const BAD_INPUT: ReadonlySet<ErrorCode> = new Set([
	ErrorCode.InvalidId,
	ErrorCode.InvalidInput,
	ErrorCode.InvalidWorkflow,
	ErrorCode.InvalidResource,
	ErrorCode.NotFound,
	ErrorCode.ArtifactPath,
]);

/**
 * Runs a command to its exit code. An error becomes one line naming the bad value (with its stack
 * under --debug), a file system's naming the path and the cause: a path whose folder does not
 * exist is bad input, a file system that refuses (read-only, full, no permission) refuses the
 * command; a `.crew/` it made where there was none, holding nothing yet, it takes back. A reader
 * that stops early (`crew events <id> | head`) ends nothing.
 */
export async function outcome(argv: readonly string[], command: () => Promise<number>): Promise<number> {
	process.stdout.on("error", (error: NodeJS.ErrnoException) => {
		// A runner must not crash mid-run because its reader went away.
		if (error.code !== "EPIPE") throw error;
	});
	const project = findProject(process.cwd());
	const fresh = !existsSync(project.crewDir);
	try {
		return await command();
	} catch (error) {
		if (fresh) await takeBackStore(project);
		const file = fileErrorText(error);
		const message = file?.text ?? (error instanceof Error ? error.message : String(error));
		printError(`crew: ${message}\n`);
		if (argv.includes("--debug") && error instanceof Error && error.stack) printError(`${error.stack}\n`);
		if (file) return file.badInput ? Exit.Usage : Exit.Failed;
		return error instanceof CrewError && BAD_INPUT.has(error.code) ? Exit.Usage : Exit.Failed;
	}
}
