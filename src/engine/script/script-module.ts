import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";

/** What a workflow script exports: its function, and optionally the schema of its arguments. */
export interface ScriptModule {
	readonly main: (ctx: never) => unknown;
	readonly args?: unknown;
}

/** The module scripts import crew's helpers from (`import { z } from "crew/script"`), built or not. */
function scriptApiFile(): string {
	const built = fileURLToPath(new URL("../../script.js", import.meta.url));
	return existsSync(built) ? built : built.replace(/\.js$/, ".ts");
}

/**
 * Loads a TypeScript workflow script, transpiled in process by jiti (no build step, no loader
 * hooks, Node 20). Nothing is cached between loads, in memory or on disk, so each run reads the
 * file as it is. `crew/script` resolves to crew's own helpers whether or not crew is installed
 * where the script lives.
 */
export async function loadScript(file: string): Promise<ScriptModule> {
	const jiti = createJiti(import.meta.url, {
		fsCache: false,
		moduleCache: false,
		alias: { "crew/script": scriptApiFile() },
	});
	let loaded: Record<string, unknown>;
	try {
		loaded = (await jiti.import(file)) as Record<string, unknown>;
	} catch (error) {
		throw new CrewError(ErrorCode.InvalidResource, `cannot load workflow script ${file}: ${errorMessage(error)}`, {
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
