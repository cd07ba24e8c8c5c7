// A readiness check that the pi extensions the user installed load, as they would in every pi worker.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Check, runProgram, whyFailed } from "../agent/cli-readiness.js";
import { piCredentials } from "../agent/credentials.js";
import { agentEnvironment } from "../agent/environment.js";

/**
 * Whether the extensions the user installed for pi load, as they do in every pi worker: pi in RPC
 * mode with stdin closed loads them, then ends at once without a model call; one that fails to load
 * makes it exit 1 with the file and the error, as it would fail every task. It runs in an empty
 * folder, so only the user's own extensions and packages load, not a repository's.
 */
export async function piExtensionsCheck(command: readonly string[], env: NodeJS.ProcessEnv): Promise<Check> {
	const dir = mkdtempSync(join(tmpdir(), "crew-doctor-"));
	try {
		const out = await runProgram(
			command,
			["--mode", "rpc", "--no-session", "--offline"],
			agentEnvironment(env, {}, piCredentials(undefined, env)),
			60_000,
			dir,
		);
		if (!out.error && out.code === 0) return { name: "pi extensions", ok: true, detail: "the installed ones load" };
		return {
			name: "pi extensions",
			ok: false,
			detail: whyFailed("pi", out),
			fix: "fix or remove the extension named (pi's extensions folder, or `pi remove <package>`), or use a pi it is written for (`runtimes.pi` in your crew config.json, or CREW_PI)",
		};
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
