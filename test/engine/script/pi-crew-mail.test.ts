import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { type Db, openReader } from "../../../src/store/database.js";
import { RunQueries } from "../../../src/store/run-queries.js";
import { crew, crewProcess, exitOf, read, TestRepo, waitFor } from "../../helpers.js";

const FIXTURE = join(import.meta.dirname, "..", "..", "fixtures", "pi-crew", "mail.dwf.ts");

function mailRepo(): TestRepo {
	const repo = new TestRepo();
	repo.writeFile(".crew/workflows/mail.dwf.ts", readFileSync(FIXTURE, "utf8"));
	const agent = (name: string, command: string) => repo.commandAgent(name, command);
	agent("worker", 'cat "$CREW_PROMPT_FILE"');
	// It works until the test lets it go (a minute at most), so the script's mail finds it running.
	agent("sleeper", `for i in $(seq 600); do [ -f '${repo.dir}/release' ] && break; sleep 0.1; done; echo slept`);
	repo.writeFile(
		".crew/workflows/steps.workflow.md",
		"---\nname: steps\ndescription: two steps\n---\n\n## look\nrole: worker\n\nLook at {{focus}} for {goal}; keep {other}.\n\n## check\nrole: worker\ndependsOn: look\nverify: npm test\n\nCheck it.\n",
	);
	return repo;
}

async function runIdOf(repo: TestRepo): Promise<string> {
	return await waitFor("the run", () => read(repo.dir, (r) => r.repo.runs()[0]?.id));
}

interface InboxJson {
	readonly kind: string;
	readonly runId: string;
	readonly what: string;
	readonly command: string;
}

async function mailInInbox(repo: TestRepo, name: string): Promise<InboxJson> {
	return await waitFor(
		`mail ${name} in the inbox`,
		() => read(repo.dir, (r) => r.repo.waitingMail()).some((m) => m.name === name),
		60_000,
	).then(async () => {
		const inbox = (JSON.parse((await crew(repo.dir, ["inbox", "--json"])).stdout) as { items: InboxJson[] }).items;
		return inbox.find((i) => i.kind === "mail" && i.command.includes(` ${name} `)) as InboxJson;
	});
}

/** A run of the mail script, waiting for a reply to m2. */
async function gatheringRun() {
	const repo = mailRepo();
	const runner = crewProcess(repo.dir, ["run", "mail", "--workflow", "mail"]);
	const runId = await runIdOf(repo);
	await mailInInbox(repo, "m2");
	return { repo, runner, runId };
}

function resultOf(repo: TestRepo, runId: string) {
	const text = readFileSync(join(repo.dir, ".crew", "runs", runId, "result.json"), "utf8");
	return JSON.parse(text) as { artifactPath: string; meta: Record<string, unknown> };
}

test("pi-crew's ctx.mail reaches a person's inbox and a running task's agent; the reply given with crew answer is what gatherReplies returns; renderTemplate renders a workflow; per-call maxTurns and skill", async () => {
	const repo = mailRepo();
	const runner = crewProcess(repo.dir, ["run", "mail", "--workflow", "mail", "--args", '{"slow": true}']);
	const runId = await runIdOf(repo);
	const item = await mailInInbox(repo, "m2");
	expect(item.what).toBe("its workflow script mails leader (m2): Which area first?");
	expect(item.command).toBe(`crew answer ${runId} m2 "<reply>"`);
	const refused = await crew(repo.dir, ["answer", runId, "m9", "x"]);
	expect(refused.code).not.toBe(0);
	expect(refused.stderr).toContain(`run ${runId} has no task or step 'm9'; mail waiting for a reply: m1, m2`);
	await waitFor("the sleeper running", () =>
		read(repo.dir, (r) => r.status(runId).tasks.some((t) => t.id === "sleeper-1" && t.status === "running")),
	);
	const answered = await crew(repo.dir, ["answer", runId, "m2", "the parser"]);
	expect(answered.code, answered.stderr).toBe(0);
	expect(answered.stdout).toContain(`mail m2 of run ${runId} replied to`);
	const again = await crew(repo.dir, ["answer", runId, "m2", "twice"]);
	expect(again.stderr).toContain(`mail m2 of run ${runId} has a reply already`);
	await waitFor("the mail to the sleeper", () =>
		read(repo.dir, (r) => r.events(runId, 0, 1000)).some((e) => e.type === "task.steered"),
	);
	writeFileSync(join(repo.dir, "release"), "");
	await exitOf(runner);
	expect(runner.exitCode).toBe(0);

	const { meta } = resultOf(repo, runId);
	expect(meta).toMatchObject({ goal: "mail", aborted: false, none: [] });
	expect(meta.replies).toEqual([
		{ id: "m2.reply", replyTo: "m2", from: "leader", body: "the parser", createdAt: expect.any(String) },
	]);
	expect(meta.text).toContain("Work on the parser");
	expect(meta.plan).toEqual({
		templateName: "steps",
		phases: [
			{ name: "look", role: "worker", task: "Look at the parser for ship it; keep {other}.", dependsOn: [] },
			{ name: "check", role: "worker", task: "Check it.", dependsOn: ["look"], verificationCommand: "npm test" },
		],
		variables: { goal: "ship it", focus: "the parser" },
	});
	const db = openReader(join(repo.dir, ".crew", "crew.db")) as Db;
	const worker = new RunQueries(db).taskSpecs(runId).find((t) => t.id.startsWith("worker-"));
	db.close();
	expect(worker?.agent.setup).toMatchObject({ maxTurns: 3, skills: [], inheritSkills: false });
	// The mail to the running sleeper went to its agent; a command agent takes no messages, and says so.
	const steered = read(repo.dir, (r) => r.events(runId, 0, 1000)).filter((e) => e.type === "task.steered");
	expect(steered.map((e) => [e.taskId, e.data.text])).toEqual([
		["sleeper-1", "Mail m3 from the run's workflow script:\n\nHurry up, please"],
	]);
	const inbox = (JSON.parse((await crew(repo.dir, ["inbox", "--json"])).stdout) as { items: InboxJson[] }).items;
	expect(inbox.filter((i) => i.kind === "mail")).toEqual([]);
}, 120_000);

test("after a kill -9 while the script gathers replies, crew answer starts a runner: no mail is sent again, the recorded gathers give back what they gave", async () => {
	const { repo, runner, runId } = await gatheringRun();
	runner.kill("SIGKILL");
	await exitOf(runner);
	const answered = await crew(repo.dir, ["answer", runId, "m2", "the lexer", "--json"]);
	expect(answered.code, answered.stderr).toBe(0);
	expect(JSON.parse(answered.stdout)).toMatchObject({ mail: "m2", to: "leader", runnerAlive: false });
	await waitFor("the run's end", () => read(repo.dir, (r) => r.status(runId).run.status === "completed"), 60_000);

	const { meta } = resultOf(repo, runId);
	expect(meta.none).toEqual([]);
	expect(meta.replies).toMatchObject([{ replyTo: "m2", body: "the lexer" }]);
	const events = read(repo.dir, (r) => r.events(runId, 0, 1000));
	expect(events.filter((e) => e.type === "script.mail").map((e) => e.data.mail)).toEqual(["m1", "m2"]);
	expect(events.filter((e) => e.type === "script.replies").map((e) => e.data.key)).toEqual(["v1", "v2"]);
}, 120_000);

test("a mail of a run that was cancelled takes no reply, and the run stays cancelled", async () => {
	const { repo, runner, runId } = await gatheringRun();
	const cancelled = await crew(repo.dir, ["cancel", runId]);
	expect(cancelled.code, cancelled.stderr).toBe(0);
	await exitOf(runner);
	const late = await crew(repo.dir, ["answer", runId, "m2", "too late"]);
	expect(late.code).not.toBe(0);
	expect(late.stderr).toContain(`run ${runId} is cancelled: its workflow script gathers no more replies`);
	expect(read(repo.dir, (r) => r.run(runId)).status).toBe("cancelled");
	expect(read(repo.dir, (r) => r.repo.waitingMail())).toEqual([]);
}, 120_000);
