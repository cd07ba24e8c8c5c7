// Loading of a TypeScript workflow script through jiti, and the reading of its run's arguments.

import { createJiti } from "jiti";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";
import * as scriptApi from "../../script.js";
import { valueSchema } from "./result-schema.js";

/** What a workflow script exports: its function, and optionally the schema of its arguments. */
export interface ScriptModule {
	readonly main: (ctx: never) => unknown;
	readonly args?: unknown;
}

/**
 * Loads a TypeScript workflow script, transpiled in process by jiti (no build step, no loader
 * hooks, Node 20). Nothing is cached between loads, in memory or on disk, so each run reads the
 * file as it is. `crew/script` is crew's own module, already loaded: scripts need no install of
 * crew where they live, and their zod is the one crew checks with.
 */
export async function loadScript(file: string): Promise<ScriptModule> {
	const jiti = createJiti(import.meta.url, {
		fsCache: false,
		moduleCache: false,
		virtualModules: { "crew/script": scriptApi },
	});
	let loaded: Record<string, unknown>;
	try {
		loaded = (await jiti.import(file)) as Record<string, unknown>;
	} catch (error) {
		const message = errorMessage(error)
			.replace(/\s*\n\s*/g, " ")
			.trim();
		throw new CrewError(ErrorCode.InvalidResource, `cannot load workflow script ${file}: ${message}`, {
			cause: error,
		});
	}
	const main = loaded.default;
	if (typeof main !== "function") {
		throw new CrewError(
			ErrorCode.InvalidResource,
			`workflow script ${file} must default-export its function (export default async (ctx) => { … }); its default export is ${main === undefined ? "missing" : typeof main}`,
		);
	}
	return { main: main as ScriptModule["main"], ...(loaded.args !== undefined ? { args: loaded.args } : {}) };
}

/** The run's arguments as the script's `args` schema reads them, or an error naming every problem. */
export function scriptArgs(module: ScriptModule, given: unknown, file: string): unknown {
	if (module.args === undefined) return given ?? {};
	const checked = valueSchema(module.args, `the args export of ${file}`).check(given ?? {});
	if ("problems" in checked) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid --args for workflow script ${file}: ${checked.problems.join("; ")}`,
		);
	}
	return checked.value;
}
