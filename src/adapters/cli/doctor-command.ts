import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { findProject } from "../../config/project.js";
import { RunReader } from "../../engine/run-reader.js";
import { agentEnvironment } from "../../runtimes/agent-environment.js";
import { claudeCredentials, codexCredentials, piCredentials } from "../../runtimes/credentials.js";
import { piProgram } from "../../runtimes/pi-cli.js";
import { Exit } from "./exit-codes.js";

interface Check {
	readonly name: string;
	readonly ok: boolean;
	readonly detail: string;
}

/** Runs `<program> --version`; the first line of its answer, or why there is none. */
function version(file: string, args: readonly string[]): Promise<{ ok: boolean; detail: string }> {
	return new Promise((resolve) => {
		execFile(file, [...args, "--version"], { timeout: 20_000 }, (error, stdout, stderr) => {
			if (error) {
				const code = (error as NodeJS.ErrnoException).code;
				resolve({ ok: false, detail: code === "ENOENT" ? "not found on PATH" : (error.message.split("\n")[0] ?? "") });
			} else resolve({ ok: true, detail: (stdout.trim() || stderr.trim()).split("\n")[0] ?? "" });
		});
	});
}

/**
 * Names of the variables each agent CLI would see for its configuration and credentials (pi with no
 * model of its own: a model narrows it to its provider's); never values.
 */
function credentialNames(): { runtime: string; names: string[] }[] {
	const base = new Set(["PATH", "HOME", "USER", "SHELL", "TMPDIR", "TERM", "LANG"]);
	const rules = [
		{ runtime: "pi", credentials: piCredentials(undefined, process.env) },
		{ runtime: "claude", credentials: claudeCredentials() },
		{ runtime: "codex", credentials: codexCredentials(process.env) },
	];
	return rules.map(({ runtime, credentials }) => ({
		runtime,
		names: Object.keys(agentEnvironment(process.env, {}, credentials))
			.filter((key) => !base.has(key) && !key.startsWith("LC_"))
			.sort(),
	}));
}

function storeCheck(): Check {
	let reader: RunReader;
	try {
		reader = new RunReader(findProject(process.cwd()));
	} catch (error) {
		return { name: "store", ok: false, detail: error instanceof Error ? error.message : String(error) };
	}
	try {
		const health = reader.health();
		const detail = health.exists
			? `${health.file}: ${health.check}, schema ${health.schemaVersion}, ${health.runs} runs`
			: `${health.file}: ${health.check}`;
		return { name: "store", ok: !health.exists || health.check === "ok", detail };
	} finally {
		reader.close();
	}
}

/**
 * What this machine offers crew: the runtimes and their versions, the credentials agents would
 * see (names only), and the store's health. Fails when the default runtime, pi, cannot run.
 */
export async function doctorCommand(options: { json?: boolean }): Promise<number> {
	const checks: Check[] = [];
	let pi: { ok: boolean; detail: string };
	try {
		const [file, ...args] = process.env.CREW_PI ? [process.env.CREW_PI] : piProgram(process.env);
		pi = await version(file as string, args);
	} catch (error) {
		pi = { ok: false, detail: error instanceof Error ? error.message : String(error) };
	}
	checks.push({ name: "runtime pi (default)", ...pi });
	for (const name of ["claude", "codex"]) {
		const program = process.env[`CREW_${name.toUpperCase()}`] || name;
		checks.push({ name: `runtime ${name}`, ...(await version(program, [])) });
	}
	checks.push({ name: "runtime command", ok: existsSync("/bin/sh"), detail: "/bin/sh" });
	checks.push({ name: "runtime dry-run", ok: true, detail: "built in" });
	for (const { runtime, names } of credentialNames()) {
		const detail = names.length > 0 ? names.join(", ") : "none visible";
		checks.push({ name: `credentials for ${runtime}`, ok: true, detail });
	}
	checks.push(storeCheck());
	if (options.json) process.stdout.write(`${JSON.stringify({ checks })}\n`);
	else for (const c of checks) process.stdout.write(`${c.ok ? "ok  " : "--  "}${c.name}: ${c.detail}\n`);
	const healthy = pi.ok && checks.find((c) => c.name === "store")?.ok === true;
	return healthy ? Exit.Ok : Exit.Failed;
}
