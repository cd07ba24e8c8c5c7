// @module-tag agent-cli
// @slow: pi-crew's strict-fast-fix run by three real pi agents on the scripted model
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import type { Script } from "../../src/scripted-model/turns.js";
import { crew, gitRepo, lastJson, read } from "../helpers.js";
import { serverStarter } from "../scripted-model/servers.js";

const startServer = serverStarter();

/** The spec pi-crew's strict-fast-fix names, as a user would import it. */
const PROBE = {
	id: "b5-t4-strict-probe",
	version: 1,
	title: "The strict probe",
	requirements: [{ id: "P1", text: "the failing case is found", priority: "must" }],
	acceptance: [{ id: "probe-1", requirementId: "P1", check: "the cause is named", command: "true", idempotent: true }],
	source: { kind: "manual" },
};

/** Each agent answers its own prompt: the explorer with evidence for the spec, the verifier with a verdict. */
const fixing: Script = (request) => {
	const prompt = request.messages.filter((m) => m.role === "user").at(0)?.text ?? "";
	if (prompt.includes("## Requirements this task is held to"))
		return {
			kind: "text",
			text: "The cause is login.ts line 3.\n\nSPEC-EVIDENCE:\nprobe-1: login.ts:3 throws on an empty name",
		};
	if (prompt.includes("End with a line that is PASS or FAIL")) return { kind: "text", text: "Checked.\nPASS" };
	return { kind: "text", text: "Changed login.ts." };
};

test("pi-crew's strict-fast-fix, with its spec imported, is planned and run by pi agents, its explore step held to the spec", async () => {
	const server = await startServer(fixing);
	const pi = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	const repo = gitRepo();
	const env = { ...process.env, ...pi.env };
	const args = ["run", "the login fails on an empty name", "--workflow", "strict-fast-fix", "--model", pi.model];

	// Without its spec, the strict workflow does not start.
	const refused = await crew(repo.dir, args, 60_000, env);
	expect(refused.code).toBe(2);
	expect(refused.stderr).toContain(
		"step 'explore' names spec 'b5-t4-strict-probe': it is not among this repository's specs",
	);

	writeFileSync(join(repo.dir, "probe.json"), JSON.stringify(PROBE));
	expect((await crew(repo.dir, ["spec", "import", "probe.json"], 60_000, env)).code).toBe(0);
	const plan = await crew(repo.dir, ["plan", ...args.slice(1), "--json"], 60_000, env);
	expect(plan.code, plan.stderr).toBe(0);
	expect(JSON.parse(plan.stdout).order).toEqual(["explore", "execute", "verify"]);

	const run = await crew(repo.dir, [...args, "--json"], 240_000, env);
	expect(run.code, run.stderr).toBe(0);
	const runId = lastJson(run.stdout).runId;
	const explore = read(repo.dir, (r) => r.taskSpecs(runId).find((t) => t.id === "explore"));
	expect(explore?.specs).toMatchObject({ strict: true, snapshots: [{ specId: "b5-t4-strict-probe", trusted: true }] });
	const gate = read(repo.dir, (r) => r.events(runId).find((e) => e.type === "task.spec_gate"));
	expect(gate).toMatchObject({
		taskId: "explore",
		data: { mode: "strict", badge: null, cited: { "probe-1": "login.ts:3 throws on an empty name" } },
	});
	// Its must's check was run again, confined, and met.
	const checked = read(repo.dir, (r) => r.events(runId).find((e) => e.type === "spec.checked"));
	expect(checked).toMatchObject({
		taskId: "explore",
		data: { checks: [{ specId: "b5-t4-strict-probe", acceptanceId: "probe-1", outcome: "met", exitCode: 0 }] },
	});
	expect(read(repo.dir, (r) => r.status(runId).tasks.map((t) => `${t.id}:${t.status}`))).toEqual([
		"explore:completed",
		"execute:completed",
		"verify:completed",
	]);
});
