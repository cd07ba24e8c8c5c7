// Repositories whose user config lets their agents delegate, and how the tests of runs inside runs read them.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { TrustStore } from "../../src/config/trust.js";
import { cancelLiveRuns, crew, TestRepo } from "../helpers.js";

/**
 * A trusted repository whose user config (a folder of its own) has `nesting` (default: runs nested
 * 2 deep), with the environment that names that config, `extraEnv` added.
 */
export function nestingRepo(
	extraEnv: NodeJS.ProcessEnv = {},
	nesting: object = { maxDepth: 2 },
): { repo: TestRepo; env: NodeJS.ProcessEnv } {
	const home = mkdtempSync(join(tmpdir(), "crew-config-"));
	mkdirSync(join(home, "crew"));
	writeFileSync(join(home, "crew", "config.json"), JSON.stringify({ nesting }));
	const repo = new TestRepo();
	const env = { ...process.env, XDG_CONFIG_HOME: home, ...extraEnv };
	new TrustStore(env).trust(repo.dir);
	return { repo, env };
}

/** A command agent at the default sandbox: no `sandbox:` key, so the run's level holds. */
export function confinedCommand(repo: TestRepo, name: string, command: string): void {
	repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\nruntime: command\ncommand: ${command}\n---\n`);
}

export interface Spent {
	inputTokens: number;
	outputTokens: number;
}

export interface StatusJson {
	run: {
		id: string;
		status: string;
		error: string | null;
		parent?: { runId: string; taskId: string; attempt: number };
		children?: { runId: string; taskId: string; attempt: number; status: string; usage: Spent }[];
		usage: Spent;
		usageOwn?: Spent;
		usageNested?: Spent;
	};
	tasks: { id: string; status: string; attempts: number; error: string | null }[];
}

/**
 * A maker of repositories that allow delegation (see `nestingRepo`) for a test file: each test's
 * live runs are cancelled after it.
 */
export function nestingRepos(): (extraEnv?: NodeJS.ProcessEnv, nesting?: object) => ReturnType<typeof nestingRepo> {
	const made: TestRepo[] = [];
	afterEach(async () => {
		for (const repo of made.splice(0)) await cancelLiveRuns(repo.dir);
	});
	return (extraEnv, nesting) => {
		const repo = nestingRepo(extraEnv, nesting);
		made.push(repo.repo);
		return repo;
	};
}

/** Input and output tokens of a usage as `crew status --json` gives it; 0 for none. */
export function tokens(spent: Spent | undefined): number {
	return spent ? spent.inputTokens + spent.outputTokens : 0;
}

export async function statusOf(repo: TestRepo, runId: string, env: NodeJS.ProcessEnv): Promise<StatusJson> {
	const shown = await crew(repo.dir, ["status", runId, "--json"], 60_000, env);
	expect(shown.code, shown.stderr).toBe(0);
	return JSON.parse(shown.stdout) as StatusJson;
}

export async function runIds(repo: TestRepo, env: NodeJS.ProcessEnv): Promise<string[]> {
	const listed = await crew(repo.dir, ["runs", "--json"], 60_000, env);
	return (JSON.parse(listed.stdout) as { id: string }[]).map((r) => r.id);
}
