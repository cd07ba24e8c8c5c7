// @module-tag agent-cli
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import type { Script } from "../../../src/scripted-model/turns.js";
import { cancelLiveRuns, gitRepo, ROOT, read } from "../../helpers.js";
import { serverStarter } from "../../scripted-model/servers.js";
import { PiRpc } from "./pi-rpc.js";

const startServer = serverStarter();
const sessions: PiRpc[] = [];
const repos: string[] = [];
afterEach(async () => {
	for (const session of sessions.splice(0)) session.kill();
	for (const dir of repos.splice(0)) await cancelLiveRuns(dir);
});

/** The session starts a run, forks it by the id the run's answer gave, then says it is done. */
const script: Script = (request) => {
	const results = request.messages.filter((m) => m.role === "tool");
	if (results.length === 0) {
		return {
			kind: "call",
			tool: "team",
			args: { action: "run", goal: "review", workflow: "chain", runtime: "dry-run" },
		};
	}
	if (results.length === 1) {
		const runId = /Started crew run (\S+)/.exec(results[0]?.text ?? "")?.[1] ?? "none";
		return { kind: "call", tool: "team", args: { action: "fork", runId } };
	}
	return { kind: "text", text: "Forked." };
};

test("pi's team tool forks a run, and the fork is recorded as the session's, as the run it forks is", async () => {
	const server = await startServer(script);
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-fork-")));
	const repo = gitRepo();
	repos.push(repo.dir);
	const env = { PATH: process.env.PATH, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, ...scripted.env };
	const pi = [join(ROOT, "node_modules", ".bin", "pi")];
	PiRpc.install(pi, ROOT, env);
	const session = new PiRpc(pi, ["--model", scripted.model], repo.dir, env);
	sessions.push(session);
	session.send({ type: "prompt", message: "Review, then try it again." });
	await session.record("the session's last answer", (record) => JSON.stringify(record).includes("Forked."));

	const forkAnswer = server.requests.at(-1)?.messages.filter((m) => m.role === "tool")[1]?.text ?? "";
	expect(forkAnswer).toContain('"of"');
	const runs = read(repo.dir, (reader) =>
		reader.repo.runs().map((run) => ({ forkedFrom: run.forkedFrom, session: run.options.caller?.session })),
	);
	expect(runs).toHaveLength(2);
	const original = runs.find((run) => run.forkedFrom === null);
	const fork = runs.find((run) => run.forkedFrom !== null);
	expect(original?.session).toEqual(expect.any(String));
	expect(fork).toEqual({ forkedFrom: expect.any(String), session: original?.session });
}, 90_000);
