// `crew demo`: the sample team on the scripted model, on a sample repository or (--here) this one.

import { spawn } from "node:child_process";
import { crewPackagePath } from "../../config/crew-package.js";

export interface DemoFlags {
	/** Look around the current repository rather than fix the sample one; changes none of its files. */
	readonly here?: boolean;
	/** A real model for the sample team instead of the scripted one, through pi's own configuration. */
	readonly model?: string;
}

/** Runs the demo script of crew's package (examples/demo.mjs) in this folder; its exit code. */
export function demoCommand(flags: DemoFlags): Promise<number> {
	const args = [
		crewPackagePath("examples", "demo.mjs"),
		...(flags.here ? ["--here", process.cwd()] : []),
		...(flags.model !== undefined ? ["--model", flags.model] : []),
	];
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, args, { stdio: "inherit" });
		child.once("error", reject);
		child.once("close", (code) => resolve(code ?? 1));
	});
}
