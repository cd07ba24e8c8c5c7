import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, TestRepo } from "../../helpers.js";

interface TaskJson {
	readonly id: string;
	readonly status: string;
	readonly attempts: number;
	readonly error: string | null;
}

function lastJson<T>(stdout: string): T {
	return JSON.parse(stdout.trim().split("\n").pop() as string) as T;
}

test("a step with onMissing: attention whose agent ends without a usable answer needs attention: final, its dependents run, the run completes naming it and exits 4, the inbox offers crew retry", async () => {
	const repo = new TestRepo();
	const agent = (name: string, command: string) => repo.commandAgent(name, command);
	agent("mute", "cat answer.txt 2>/dev/null || true");
	agent("vague", "echo looks fine to me");
	agent("reader", 'cat "$CREW_PROMPT_FILE"');
	repo.workflow("attend", [
		{ id: "quiet", role: "mute", extra: { output: "quiet.md", onMissing: "attention", retries: "2" } },
		{ id: "judge", role: "vague", extra: { verify: "true", onMissing: "attention", retries: "2" } },
		{ id: "after", role: "reader", dependsOn: ["quiet", "judge"] },
		{ id: "plain", role: "mute" },
	]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "attend"]);
	// Settled, yet left for a person: it exits as a run that stopped for one does.
	expect(run.code, run.stderr).toBe(4);
	const runId = /^run (\S+) completed in .*: 2 needs_attention, 2 completed$/m.exec(run.stdout)?.[1] as string;
	expect(runId, run.stdout).toBeDefined();
	expect(run.stdout).toMatch(/^ {2}quiet +mute +needs_attention .* its output quiet\.md was not produced/m);
	expect(run.stdout).toContain(`next: crew retry ${runId} quiet\n`);
	const sharedFile = join(repo.dir, ".crew", "runs", runId, "shared", "quiet.md");
	expect(existsSync(sharedFile)).toBe(false);

	const shown = lastJson<{ tasks: TaskJson[] }>((await crew(repo.dir, ["status", runId, "--json"])).stdout);
	const byId = new Map(shown.tasks.map((t) => [t.id, t]));
	expect(byId.get("quiet")).toMatchObject({
		status: "needs_attention",
		attempts: 1,
		error: "its output quiet.md was not produced: its agent ended without an answer",
	});
	expect(byId.get("judge")).toMatchObject({ status: "needs_attention", attempts: 1 });
	expect(byId.get("judge")?.error).toContain("no verdict");
	expect(byId.get("after")).toMatchObject({ status: "completed", attempts: 1 });
	expect(byId.get("plain")).toMatchObject({ status: "completed" });

	const human = await crew(repo.dir, ["status", runId]);
	expect(human.stdout).toContain("2 needs_attention");

	const inbox = (
		JSON.parse((await crew(repo.dir, ["inbox", "--json"])).stdout) as {
			items: { kind: string; runId: string; tasks: string[]; what: string; command: string }[];
		}
	).items;
	const attention = inbox.filter((i) => i.kind === "attention");
	expect(attention).toEqual([
		expect.objectContaining({ runId, tasks: ["quiet", "judge"], command: `crew retry ${runId} quiet` }),
	]);
	expect(attention[0]?.what).toContain("quiet needs attention: its output quiet.md was not produced");

	repo.writeFile("answer.txt", "now there is an answer\n");
	const retried = await crew(repo.dir, ["retry", runId, "quiet", "--json"]);
	// judge still needs a person.
	expect(retried.code, retried.stderr + retried.stdout).toBe(4);
	const after = lastJson<{ tasks: TaskJson[] }>((await crew(repo.dir, ["status", runId, "--json"])).stdout);
	const again = new Map(after.tasks.map((t) => [t.id, t]));
	expect(again.get("quiet")).toMatchObject({ status: "completed", attempts: 2 });
	expect(again.get("after")).toMatchObject({ status: "completed", attempts: 1 });
	expect(readFileSync(sharedFile, "utf8")).toBe("now there is an answer\n");
	// A completed run opens again only for a task that needs attention.
	const refused = await crew(repo.dir, ["retry", runId, "plain"]);
	expect(refused.code).toBe(1);
	expect(refused.stderr).toContain("only failed, cancelled, skipped or needs_attention tasks can be retried");
	const left = (
		JSON.parse((await crew(repo.dir, ["inbox", "--json"])).stdout) as { items: { kind: string; tasks: string[] }[] }
	).items;
	expect(left.filter((i) => i.kind === "attention")).toEqual([expect.objectContaining({ tasks: ["judge"] })]);
});

test("onMissing takes fail or attention, and names the bad value", async () => {
	const repo = new TestRepo();
	repo.agent("worker");
	repo.workflow("odd", [{ id: "a", extra: { onMissing: "ignore" } }]);
	const plan = await crew(repo.dir, ["plan", "g", "--workflow", "odd"]);
	expect(plan.code).not.toBe(0);
	expect(plan.stderr).toContain("step 'a': onMissing 'ignore'");
	expect(plan.stderr).toContain("expected fail or attention");
});
