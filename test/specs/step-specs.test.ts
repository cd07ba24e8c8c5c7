import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, lastJson, read, type TestRepo } from "../helpers.js";
import { heldWorkflow, repoWithSpec } from "./held-spec.js";

const SPEC = {
	id: "login-spec",
	version: 2,
	title: "Login works",
	requirements: [
		{ id: "R1", text: "a user can log in", priority: "must" },
		{ id: "R2", text: "errors read well", priority: "could" },
	],
	acceptance: [
		{ id: "A1", requirementId: "R1", check: "the login test passes", command: "true", idempotent: true },
		{ id: "A2", requirementId: "R2", check: "errors name the field" },
	],
	source: { kind: "manual" },
};

function gateOf(repo: TestRepo, runId: string): Record<string, unknown> | undefined {
	return read(repo.dir, (r) => r.events(runId).find((e) => e.type === "task.spec_gate")?.data);
}

test("a step that names a spec gets it frozen in its prompt, and its answer's evidence footer is weighed against it", async () => {
	const { repo, env } = await repoWithSpec(SPEC);
	heldWorkflow(repo, "login-spec", "logged in\\n\\nSPEC-EVIDENCE:\\nA1: the login test passed, 3 of 3\\n");
	const plan = await crew(repo.dir, ["plan", "g", "--team", "held", "--workflow", "held", "--json"], 60_000, env);
	expect(plan.code, plan.stderr).toBe(0);
	const run = await crew(repo.dir, ["run", "g", "--team", "held", "--workflow", "held", "--json"], 60_000, env);
	expect(run.code, run.stderr).toBe(0);
	const runId = lastJson(run.stdout).runId;
	const prompt = read(repo.dir, (r) => r.taskSpecs(runId).find((t) => t.id === "work"));
	expect(prompt?.text).toContain("## Requirements this task is held to");
	expect(prompt?.text).toContain(
		"Spec login-spec@v2: Login works\n- A1 (must, R1: a user can log in): the login test passes",
	);
	expect(prompt?.text).toContain("then one line per check, `<check id>: <what shows it is met>`");
	expect(prompt?.specs).toMatchObject({
		strict: false,
		unresolved: [],
		snapshots: [{ specId: "login-spec", trusted: true }],
	});
	expect(gateOf(repo, runId)).toEqual({
		mode: "coverage",
		badge: null,
		footerPresent: true,
		missingMustIds: [],
		unknownIds: [],
		cited: { A1: "the login test passed, 3 of 3" },
	});

	expect(
		read(repo.dir, (r) => r.events(runId).filter((e) => e.type === "spec.frozen" || e.type === "spec.freeze_failed")),
	).toEqual([
		expect.objectContaining({
			type: "spec.frozen",
			taskId: "work",
			data: {
				specId: "login-spec",
				version: 2,
				title: "Login works",
				trusted: true,
				strict: false,
				items: [
					{
						requirement: { id: "R1", text: "a user can log in", priority: "must" },
						acceptance: { id: "A1", check: "the login test passes" },
					},
					{
						requirement: { id: "R2", text: "errors read well", priority: "could" },
						acceptance: { id: "A2", check: "errors name the field" },
					},
				],
			},
		}),
	]);

	// A spec changed after its run was planned does not change that run's tasks.
	writeFileSync(join(repo.dir, "spec.json"), JSON.stringify({ ...SPEC, version: 3 }));
	await crew(repo.dir, ["spec", "import", "spec.json"], 60_000, env);
	expect(read(repo.dir, (r) => r.taskSpecs(runId)[0]?.specs?.snapshots[0]?.version)).toBe(2);
});

test("an answer that does not cite a must's check, or cites what the spec lacks, is marked unverified; a could is never needed", async () => {
	const { repo, env } = await repoWithSpec(SPEC);
	heldWorkflow(repo, "login-spec", "done\\nSPEC-EVIDENCE:\\nA2: errors name the field\\nA9: made up\\n");
	const run = await crew(repo.dir, ["run", "g", "--team", "held", "--workflow", "held", "--json"], 60_000, env);
	expect(run.code, run.stderr).toBe(0);
	expect(gateOf(repo, lastJson(run.stdout).runId)).toMatchObject({
		badge: "unverified",
		footerPresent: true,
		missingMustIds: ["A1"],
		unknownIds: ["A9"],
	});
	heldWorkflow(repo, "login-spec", "done, no footer\\n");
	const bare = await crew(repo.dir, ["run", "g", "--team", "held", "--workflow", "held", "--json"], 60_000, env);
	expect(gateOf(repo, lastJson(bare.stdout).runId)).toMatchObject({ badge: "unverified", footerPresent: false });
});

test("a strict workflow starts only with a verifier step and every spec it names; a step that is not strict starts with a warning", async () => {
	const { repo, env } = await repoWithSpec(SPEC);
	heldWorkflow(repo, "login-spec", "x", { specStrict: "true" }, false);
	const noVerifier = await crew(repo.dir, ["run", "g", "--team", "held", "--workflow", "held"], 60_000, env);
	expect(noVerifier.code).toBe(2);
	expect(noVerifier.stderr).toContain(
		"workflow held holds its steps to their specs strictly (specStrict) but has no step whose role is verifier: add one",
	);
	heldWorkflow(repo, "login-spec, no-such-spec", "x", { specStrict: "yes" });
	const missing = await crew(repo.dir, ["run", "g", "--team", "held", "--workflow", "held"], 60_000, env);
	expect(missing.code).toBe(2);
	expect(missing.stderr).toContain(
		"step 'work' names spec 'no-such-spec': it is not among this repository's specs (crew spec list)",
	);
	expect(JSON.parse((await crew(repo.dir, ["runs", "--json"], 60_000, env)).stdout)).toEqual([]);

	heldWorkflow(repo, "no-such-spec", "x");
	const loose = await crew(repo.dir, ["run", "g", "--team", "held", "--workflow", "held", "--json"], 60_000, env);
	expect(loose.code, loose.stderr).toBe(0);
	expect(loose.stderr).toContain("the step runs without it, unverified");
	const looseId = lastJson(loose.stdout).runId;
	expect(read(repo.dir, (r) => r.events(looseId).find((e) => e.type === "spec.freeze_failed"))).toMatchObject({
		taskId: "work",
		data: { specId: "no-such-spec", reason: "it is not among the repository's specs" },
	});
	expect(gateOf(repo, lastJson(loose.stdout).runId)).toMatchObject({ badge: "unverified" });

	heldWorkflow(repo, "../etc", "x");
	const bad = await crew(repo.dir, ["validate"], 60_000, env);
	expect(bad.code).toBe(2);
	expect(bad.stderr + bad.stdout).toContain(
		"specRefs '../etc': expected spec ids (crew spec list), separated by commas",
	);
});
