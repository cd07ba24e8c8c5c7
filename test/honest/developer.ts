import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { type Victim, victims } from "../attacks/attacker.js";
import type { CliResult } from "../helpers.js";

/**
 * A developer's machine, as the attack suite's user has one (a home, a repository, crew on PATH),
 * for work the sandbox must let through: the repository is trusted, and what the developer's own
 * config allows is theirs to set.
 */
export interface Developer extends Victim {
	/** Writes the developer's crew config (`~/.config/crew/config.json`). */
	config(settings: unknown): void;
	/**
	 * Runs `script` as a command agent of the repository's (`crew agent`, in the default sandbox or
	 * `sandbox`); throws, naming `step`, unless it completed (or, with `failing`, returns as it ended).
	 */
	command(
		step: string,
		script: string,
		options?: { readonly sandbox?: "strict"; readonly failing?: true },
	): Promise<CliResult>;
	/** Throws, naming `step`, what it ended with and what the sandbox refused, unless `result` is of a completed delegation. */
	expectDone(step: string, result: CliResult): Promise<void>;
}

export function developers(): () => Developer {
	const victim = victims();
	return () => developer(victim());
}

function developer(machine: Victim): Developer {
	mkdirSync(join(machine.repo, ".crew", "agents"), { recursive: true });
	let trusted = false;
	const self: Developer = {
		...machine,
		config(settings) {
			const dir = join(machine.home, ".config", "crew");
			mkdirSync(dir, { recursive: true });
			writeFileSync(join(dir, "config.json"), JSON.stringify(settings));
		},
		async command(step, script, options = {}) {
			const name = `step-${step.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`;
			writeFileSync(join(machine.repo, `${name}.sh`), script);
			const agent = `---\nname: ${name}\nruntime: command\ncommand: "sh ${name}.sh"\n---\n${step}\n`;
			writeFileSync(join(machine.repo, ".crew", "agents", `${name}.md`), agent);
			if (!trusted) {
				await machine.crew(["trust"]);
				trusted = true;
			}
			const level = options.sandbox ? ["--sandbox", options.sandbox] : [];
			const result = await machine.crew(["agent", step, "--agent", name, "--json", ...level]);
			if (!options.failing) await self.expectDone(step, result);
			return result;
		},
		async expectDone(step, result) {
			const answer = lastJson(result.stdout);
			// Without --json, a delegation that completed exits 0.
			if (result.code === 0 && (answer === undefined || answer.status === "completed")) return;
			const logs = answer?.runId ? (await machine.crew(["logs", answer.runId])).stdout : "";
			const refused = logs.split("\n").filter((line) => line.includes("the sandbox refused"));
			const ended = answer ? `${answer.status}: ${answer.error ?? ""}` : `exit ${result.code}: ${result.stderr.trim()}`;
			throw new Error(`${step}: ${ended}${refused.length > 0 ? `; ${refused.map((l) => l.trim()).join("; ")}` : ""}`);
		},
	};
	return self;
}

function lastJson(stdout: string): { runId?: string; status?: string; error?: string | null } | undefined {
	const line = stdout.trim().split("\n").at(-1);
	try {
		return line ? JSON.parse(line) : undefined;
	} catch {
		return undefined;
	}
}

/** Every file under `dir` with its size and time of change: what a folder held, to compare later. */
/** Writes each of `contents` (path under `dir`, text) into `dir`, making the folders it needs. */
export function writeFiles(dir: string, contents: Record<string, string>): void {
	for (const [name, text] of Object.entries(contents)) {
		mkdirSync(join(dir, name, ".."), { recursive: true });
		writeFileSync(join(dir, name), text);
	}
}

export function filesUnder(dir: string): Record<string, string> {
	const found: Record<string, string> = {};
	const walk = (at: string) => {
		for (const entry of readdirSync(at, { withFileTypes: true })) {
			const path = join(at, entry.name);
			if (entry.isDirectory()) walk(path);
			else {
				const stat = statSync(path);
				found[relative(dir, path)] = `${stat.size} ${stat.mtimeMs}`;
			}
		}
	};
	walk(dir);
	return found;
}
