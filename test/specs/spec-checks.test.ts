import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, lastJson, read } from "../helpers.js";
import { heldCommand, repoWithSpec } from "./held-spec.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * A spec whose must A1 is met when fixed.txt says `fixed` (by exit code and digest), whose must
 * A2 holds only in a check with no credentials and no network (curl exits 7 when refused), whose
 * must A3 is not idempotent and whose should S1 fails: neither of the last two is ever run.
 */
function fixSpec(port: number) {
	return {
		id: "fix-spec",
		version: 1,
		title: "The fix is written",
		requirements: [
			{ id: "R1", text: "the fix is written", priority: "must" },
			{ id: "R2", text: "it reads well", priority: "should" },
		],
		acceptance: [
			{
				id: "A1",
				requirementId: "R1",
				check: "fixed.txt says fixed",
				command: "cat fixed.txt",
				expectedDigest: sha256("fixed\n"),
				idempotent: true,
			},
			{
				id: "A2",
				requirementId: "R1",
				check: "the check runs with no credentials and no network",
				// Not in its environment, nor in any process's it can read (the sandbox's own among them).
				command: `test -z "$CREW_SECRET" && test -z "$CREW_RUN_ID" && ! cat /proc/[0-9]*/environ 2>/dev/null | grep -qa hunter2 && curl -s -m 5 -o /dev/null http://127.0.0.1:${port}/`,
				expectedExitCode: 7,
				idempotent: true,
			},
			{ id: "A3", requirementId: "R1", check: "a deploy", command: "false" },
			{ id: "S1", requirementId: "R2", check: "it reads well", command: "false", idempotent: true },
		],
		source: { kind: "manual" },
	};
}

const FOOTER = "SPEC-EVIDENCE:\\nA1: fixed.txt says fixed\\nA2: offline\\nA3: deployed\\n";
const RUN = ["run", "g", "--team", "held", "--workflow", "held", "--retries", "1", "--json"];

/** A server on 127.0.0.1 that counts its requests: a check must not reach it. */
async function counting(): Promise<{ port: number; hits: () => number; close: () => void }> {
	let hits = 0;
	const server = createServer((_request, response) => {
		hits += 1;
		response.end("reached\n");
	});
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	return { port: (server.address() as AddressInfo).port, hits: () => hits, close: () => server.close() };
}

test("a strict step's agent that does the work completes, its checks run confined; one that only cites them fails, the acceptance named, its retry told", async () => {
	const server = await counting();
	try {
		const { repo, env } = await repoWithSpec(fixSpec(server.port));
		const secretEnv = { ...env, CREW_SECRET: "hunter2" };
		heldCommand(repo, "fix-spec", `printf 'fixed\\n' > fixed.txt && printf 'done\\n\\n${FOOTER}'`, {
			specStrict: "true",
		});
		const honest = await crew(repo.dir, RUN, 90_000, secretEnv);
		expect(honest.code, honest.stderr).toBe(0);
		const honestId = lastJson(honest.stdout).runId;
		const checked = read(repo.dir, (r) => r.events(honestId).find((e) => e.type === "spec.checked"));
		expect(checked).toMatchObject({ taskId: "work" });
		expect(checked?.data.checks).toEqual([
			{
				specId: "fix-spec",
				acceptanceId: "A1",
				requirementId: "R1",
				outcome: "met",
				exitCode: 0,
				digest: sha256("fixed\n"),
			},
			{ specId: "fix-spec", acceptanceId: "A2", requirementId: "R1", outcome: "met", exitCode: 7, digest: sha256("") },
			{
				specId: "fix-spec",
				acceptanceId: "A3",
				requirementId: "R1",
				outcome: "not-run",
				reason: "its command is not marked idempotent: coverage only",
			},
		]);
		expect(server.hits()).toBe(0);
		// Seen where people look: crew status, its JSON, and the task's log.
		const status = await crew(repo.dir, ["status", honestId], 60_000, env);
		expect(status.stdout).toContain(
			[
				"  requirements:",
				"    spec fix-spec v1, strict, task work:",
				"      A1 met: R1 (must) the fix is written; evidence: fixed.txt says fixed",
				"      A2 met: R1 (must) the fix is written; evidence: offline",
				"      A3 not run (its command is not marked idempotent: coverage only): R1 (must) the fix is written; evidence: deployed",
				"      S1 unverified: R2 (should) it reads well",
			].join("\n"),
		);
		const json = JSON.parse((await crew(repo.dir, ["status", honestId, "--json"], 60_000, env)).stdout);
		expect(
			json.requirements.map((r: { acceptanceId: string; outcome: string }) => `${r.acceptanceId}:${r.outcome}`),
		).toEqual(["A1:met", "A2:met", "A3:not-run", "S1:unverified"]);
		expect(json.requirements[0]).toEqual({
			taskId: "work",
			specId: "fix-spec",
			version: 1,
			strict: true,
			trusted: true,
			requirementId: "R1",
			text: "the fix is written",
			priority: "must",
			acceptanceId: "A1",
			check: "fixed.txt says fixed",
			cited: "fixed.txt says fixed",
			outcome: "met",
			exitCode: 0,
			digest: sha256("fixed\n"),
		});
		// A fork that takes the task as it was takes what its checks came to.
		const fork = await crew(repo.dir, ["fork", honestId, "--from", "check", "--json"], 60_000, env);
		expect(fork.code, fork.stderr).toBe(0);
		const forked = JSON.parse(
			(await crew(repo.dir, ["status", lastJson(fork.stdout).runId, "--json"], 60_000, env)).stdout,
		);
		expect(forked.requirements.map((r: { outcome: string }) => r.outcome)).toEqual([
			"met",
			"met",
			"not-run",
			"unverified",
		]);
		// The verifier after it was shown them, as they stood.
		const verifierPrompt = readFileSync(join(repo.dir, ".crew/runs", honestId, "tasks/check/prompt.md"), "utf8");
		expect(verifierPrompt).toContain("## Requirements of the work you check");
		expect(verifierPrompt).toContain(
			"- task work, spec fix-spec@v1: A1 met: R1 (must) the fix is written; evidence: fixed.txt says fixed",
		);
		const logs = await crew(repo.dir, ["logs", honestId, "work"], 60_000, env);
		expect(logs.stdout).toContain("spec: cited A1, A2, A3");
		expect(logs.stdout).toContain("spec: check A1 met");
		expect(logs.stdout).toContain("check A3 not run: its command is not marked idempotent: coverage only");

		// The honest run's file is gone: the next agent only cites the check.
		rmSync(join(repo.dir, "fixed.txt"));
		heldCommand(repo, "fix-spec", `printf 'done\\n\\n${FOOTER}'`, { specStrict: "true" });
		const cheat = await crew(repo.dir, RUN, 90_000, secretEnv);
		expect(cheat.code).toBe(1);
		const cheatId = lastJson(cheat.stdout).runId;
		const work = read(repo.dir, (r) => r.status(cheatId).tasks.find((t) => t.id === "work"));
		expect(work?.status).toBe("failed");
		const failedStatus = await crew(repo.dir, ["status", cheatId], 60_000, env);
		expect(failedStatus.stdout).toContain(
			"      A1 failed (it exited 1, not 0): R1 (must) the fix is written; evidence: fixed.txt says fixed",
		);
		expect(work?.error).toBe("the spec check failed: A1 of spec fix-spec: it exited 1, not 0");
		const failed = read(repo.dir, (r) => r.events(cheatId).filter((e) => e.type === "spec.check_failed"));
		expect(failed.map((e) => e.data)).toEqual([
			{
				specId: "fix-spec",
				acceptanceId: "A1",
				requirementId: "R1",
				outcome: "failed",
				exitCode: 1,
				digest: sha256(""),
				reason: "it exited 1, not 0",
			},
			expect.objectContaining({ acceptanceId: "A1", exitCode: 1 }),
		]);
		// The second attempt was told which check failed, and how.
		expect(work?.attempts).toBe(2);
		expect(readFileSync(join(repo.dir, ".crew/runs", cheatId, "tasks/work/prompt.md"), "utf8")).toContain(
			"These checks of your task's specs were run after you finished, and failed:\n- A1 (R1: fixed.txt says fixed): it exited 1, not 0",
		);
	} finally {
		server.close();
	}
});

test("a check that fails once and then holds: the retry completes, and later plans' estimates count the failed attempt", async () => {
	const { repo, env } = await repoWithSpec(fixSpec(9));
	const honest = `printf 'fixed\\n' > fixed.txt && printf 'done\\n\\n${FOOTER}'`;
	heldCommand(repo, "fix-spec", `if [ "$CREW_ATTEMPT" = 1 ]; then printf 'done\\n\\n${FOOTER}'; else ${honest}; fi`, {
		specStrict: "true",
	});
	const run = await crew(repo.dir, RUN, 90_000, env);
	expect(run.code, run.stderr).toBe(0);
	const work = read(repo.dir, (r) => r.status(lastJson(run.stdout).runId).tasks.find((t) => t.id === "work"));
	expect(work).toMatchObject({ status: "completed", attempts: 2 });
	const plan = await crew(repo.dir, ["plan", "g", "--team", "held", "--workflow", "held", "--json"], 60_000, env);
	expect(JSON.parse(plan.stdout).estimate).toMatchObject({ specCheckFailures: 1 });
	const text = await crew(repo.dir, ["plan", "g", "--team", "held", "--workflow", "held"], 60_000, env);
	expect(text.stdout).toContain("; 1 past attempt of its steps failed spec checks first");
});

test("a goal's judge is shown the requirements of the pass it judges, as they stand", async () => {
	const { repo, env } = await repoWithSpec(fixSpec(9));
	heldCommand(
		repo,
		"fix-spec",
		`printf 'fixed\\n' > fixed.txt && printf 'done\\n\\nSPEC-EVIDENCE:\\nA1: it says fixed\\n'`,
	);
	repo.commandAgent("judger", `printf '{"verdict": "ACHIEVED", "reason": "met"}'`);
	const run = await crew(repo.dir, [...RUN, "--until-judged", "--judge", "judger"], 90_000, env);
	expect(run.code, run.stderr).toBe(0);
	const runId = lastJson(run.stdout).runId;
	const prompt = readFileSync(join(repo.dir, ".crew/runs", runId, "tasks/until.1/prompt.md"), "utf8");
	expect(prompt).toContain("## Requirements of the work you check");
	expect(prompt).toContain(
		"- task work, spec fix-spec@v1: A1 cited: R1 (must) the fix is written; evidence: it says fixed",
	);
	expect(prompt).toContain("- task work, spec fix-spec@v1: A2 unverified: R1 (must) the fix is written");
});

test("a workflow script's call names its specs as a step does: held to them strictly, its checks run; a spec it cannot find fails the call", async () => {
	const { repo, env } = await repoWithSpec(fixSpec(9));
	heldCommand(repo, "fix-spec", `printf 'fixed\\n' > fixed.txt && printf 'done\\n\\n${FOOTER}'`);
	const script = (refs: string) =>
		`import type { WorkflowContext } from "crew/script";
export default async (ctx: WorkflowContext) => {
	await ctx.agent({ role: "answerer", prompt: "Fix it", specRefs: ${refs}, specStrict: true });
};
`;
	repo.writeFile(".crew/workflows/scripted.workflow.ts", script(`["fix-spec"]`));
	const run = await crew(repo.dir, ["run", "g", "--workflow", "scripted", "--json"], 90_000, env);
	expect(run.code, run.stderr).toBe(0);
	const runId = lastJson(run.stdout).runId;
	const rows = JSON.parse((await crew(repo.dir, ["status", runId, "--json"], 60_000, env)).stdout).requirements;
	expect(
		rows.map((r: { taskId: string; acceptanceId: string; outcome: string }) => `${r.acceptanceId}:${r.outcome}`),
	).toEqual(["A1:met", "A2:met", "A3:not-run", "S1:unverified"]);
	expect(rows[0].taskId).toMatch(/^answerer-/);

	repo.writeFile(".crew/workflows/scripted.workflow.ts", script(`["no-such-spec"]`));
	const missing = await crew(repo.dir, ["run", "g", "--workflow", "scripted", "--json"], 90_000, env);
	expect(missing.code).toBe(1);
	expect(read(repo.dir, (r) => r.run(lastJson(missing.stdout).runId).error)).toContain(
		"ctx.agent call 1 names spec 'no-such-spec': it is not among this repository's specs (crew spec list)",
	);
});

test("a strict check that cannot be confined is not run: its task fails for good, saying why", async () => {
	const { repo, env } = await repoWithSpec(fixSpec(9));
	const fake = mkdtempSync(join(tmpdir(), "crew-no-bwrap-"));
	writeFileSync(join(fake, "bwrap"), "#!/bin/sh\nexit 1\n");
	chmodSync(join(fake, "bwrap"), 0o755);
	heldCommand(repo, "fix-spec", `printf 'fixed\\n' > fixed.txt && printf 'done\\n\\n${FOOTER}'`, {
		specStrict: "true",
	});
	const run = await crew(repo.dir, RUN, 90_000, { ...env, PATH: `${fake}:${env.PATH}` });
	expect(run.code).toBe(1);
	const work = read(repo.dir, (r) => r.status(lastJson(run.stdout).runId).tasks.find((t) => t.id === "work"));
	expect(work).toMatchObject({ status: "failed", attempts: 1 });
	expect(work?.error).toContain(
		"A1 of spec fix-spec: it cannot be confined, and a spec's check never runs unconfined: bubblewrap (bwrap) and socat are not both on PATH",
	);
});
