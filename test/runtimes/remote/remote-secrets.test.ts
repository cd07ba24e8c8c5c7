// @module-tag redis
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { TrustStore } from "../../../src/config/trust.js";
import { crew, crewProcess, exitOf, read, TestRepo, waitFor } from "../../helpers.js";
import { remoteFixture } from "./remote-fixture.js";

const PASSWORD = "queue-pass-7f3a9c1e5b";
const TOKEN = "repo-token-4d2b8e6a0c";
const remote = remoteFixture({ password: PASSWORD });
const REPOSITORY = `https://x-access-token:${TOKEN}@example.invalid/team/project.git`;

/** A user config folder of its own that trusts `repo`; `queueUrl` goes in its config.json. */
function userEnv(repo: TestRepo, queueUrl?: string): NodeJS.ProcessEnv {
	const home = mkdtempSync(join(tmpdir(), "crew-secrets-user-"));
	new TrustStore({ XDG_CONFIG_HOME: home }).trust(repo.dir);
	if (queueUrl !== undefined) {
		mkdirSync(join(home, "crew"), { recursive: true });
		writeFileSync(join(home, "crew", "config.json"), JSON.stringify({ queue: { url: queueUrl } }));
	}
	const { CREW_QUEUE_URL: _queue, CREW_REPOSITORY_URL: _repository, ...env } = process.env;
	return { ...env, XDG_CONFIG_HOME: home };
}

/** Every file under `.crew` (the store, its WAL, each run's folder) and `more`, whose bytes hold `secret`. */
function filesHolding(repo: TestRepo, secret: string, more: readonly string[] = []): string[] {
	const crewDir = join(repo.dir, ".crew");
	const stored = readdirSync(crewDir, { recursive: true, encoding: "utf8" })
		.filter((name) => name.startsWith("crew.db") || name.startsWith("runs"))
		.map((name) => join(crewDir, name));
	expect(stored.some((path) => path.endsWith("crew.db"))).toBe(true);
	return [...stored, ...more]
		.filter((path) => statSync(path).isFile())
		.filter((path) => readFileSync(path).includes(secret));
}

function runIdOf(stdout: string): string {
	return (JSON.parse(stdout.trim().split("\n").at(-1) as string) as { runId: string }).runId;
}

test("a queue's password and a repository's token are stored nowhere, and a detached run gets them from its starter", async () => {
	const repo = remote.keep(new TestRepo());
	repo.agent("w", "--answer");
	repo.workflow("one", [{ id: "only", role: "w" }]);
	await remote.worker("A", repo.dir);
	const env = userEnv(repo);
	const args = ["run", "g", "--workflow", "one", "--queue", remote.url, "--repository", REPOSITORY];
	const started = await crew(repo.dir, [...args, "--detach", "--json"], 60_000, env);
	expect(started.code, started.stderr).toBe(0);
	const runId = runIdOf(started.stdout);
	await waitFor("the detached run completed", () => read(repo.dir, (r) => r.status(runId)).run.status === "completed");

	const bundle = join(repo.dir, "..", `${runId}.bundle.json`);
	const exported = await crew(repo.dir, ["export", runId, "-o", bundle], 60_000, env);
	expect(exported.code, exported.stderr).toBe(0);
	expect(filesHolding(repo, PASSWORD, [bundle])).toEqual([]);
	expect(filesHolding(repo, TOKEN, [bundle])).toEqual([]);
	// What is stored still names where the queue and the repository are.
	const options = read(repo.dir, (r) => r.status(runId)).run.options;
	expect(options.queue).toBe(remote.url.replace(`:${PASSWORD}@`, ""));
	expect(options.repository).toBe("https://example.invalid/team/project.git");
});

test("resume takes the queue's password from the user's config; without it, it refuses naming what is missing", async () => {
	const repo = remote.keep(new TestRepo());
	const gates = mkdtempSync(join(tmpdir(), "crew-secrets-gates-"));
	repo.agent("w", `--answer --gate ${gates}`);
	repo.workflow("gated", [{ id: "only", role: "w" }]);
	await remote.worker("A", repo.dir);
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "gated", "--queue", remote.url], userEnv(repo));
	await waitFor("the task started on the worker", () => repo.starts("only")[0]);
	runner.kill("SIGKILL");
	await exitOf(runner);
	const runId = read(repo.dir, (r) => r.repo.runs()[0]?.id) as string;

	const refused = await crew(repo.dir, ["resume", runId], 20_000, userEnv(repo));
	expect(refused.code).not.toBe(0);
	expect(refused.stderr).toContain("needs a password");
	expect(refused.stderr).toContain("CREW_QUEUE_URL");
	expect(refused.stderr).not.toContain(PASSWORD);

	const resumed = crewProcess(repo.dir, ["resume", runId], userEnv(repo, remote.url));
	writeFileSync(join(gates, "only"), "");
	await exitOf(resumed);
	expect(resumed.exitCode).toBe(0);
	expect(read(repo.dir, (r) => r.status(runId)).run.status).toBe("completed");
	expect(filesHolding(repo, PASSWORD)).toEqual([]);
});
