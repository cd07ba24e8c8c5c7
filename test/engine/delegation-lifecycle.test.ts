// @slow: runs inside runs stopped, killed -9, resumed, reconciled and nested three deep, each a crew CLI process
import { expect, test } from "vitest";
import { CLI, crew, crewProcess, exitOf, isAlive, read, type TestRepo, waitFor } from "../helpers.js";
import { confinedCommand, nestingRepos, runIds, statusOf } from "./nesting-repo.js";

const keptRepo = nestingRepos();

test("cancelling the parent stops its running child, whose worker is gone", async () => {
	const { repo, env } = keptRepo();
	repo.agent("sleeper", "--sleep 600000");
	confinedCommand(repo, "boss", `node ${CLI} agent nap --agent sleeper`);
	const runner = crewProcess(repo.dir, ["agent", "delegate", "--agent", "boss"], env);
	await waitFor("the child's agent started", () => repo.starts("sleeper")[0]);
	const parentId = read(repo.dir, (r) => r.repo.runs().find((run) => run.goal === "delegate")?.id) as string;
	const childId = (await statusOf(repo, parentId, env)).run.children?.[0]?.runId as string;
	expect(childId).toBeDefined();
	// The pid the child's sandbox was started as: its agent's own is another pid namespace's.
	const worker = read(repo.dir, (r) => r.attempts(childId)[0]?.process?.pid) as number;
	expect(isAlive(worker)).toBe(true);
	// Its agent asks for no sandbox, but a child is never confined less than the attempt that asked for it.
	expect(read(repo.dir, (r) => r.attempts(childId)[0]?.sandbox?.level)).toBe("workspace");
	const cancelled = await crew(repo.dir, ["cancel", parentId], 60_000, env);
	expect(cancelled.code, cancelled.stderr).toBe(0);
	await exitOf(runner);
	const parent = await statusOf(repo, parentId, env);
	expect(parent.run.status, JSON.stringify(parent)).toBe("cancelled");
	expect((await statusOf(repo, childId, env)).run.status).toBe("cancelled");
	await waitFor("the child's worker gone", () => !isAlive(worker), 10_000);
});

test("a parent runner killed with SIGKILL after its child completed, resumed, does not run the child again", async () => {
	const { repo, env } = keptRepo();
	repo.agent("quick", "--answer");
	// The first attempt delegates, then waits to be killed; the one after delegates the same and ends.
	confinedCommand(
		repo,
		"boss",
		`sh -c 'node ${CLI} agent tally --agent quick; test -e again || { touch again; sleep 600; }'`,
	);
	const runner = crewProcess(repo.dir, ["run", "g", "--workflow", "agent:boss"], env);
	await waitFor(
		"the child completed and the parent waiting",
		() => repo.exists("again") && repo.ends("quick").length === 1,
	);
	runner.kill("SIGKILL");
	await exitOf(runner);
	const parentId = read(repo.dir, (r) => r.repo.runs().find((run) => run.goal === "g")?.id) as string;
	const resumed = await crew(repo.dir, ["resume", parentId], 120_000, env);
	expect(resumed.code, resumed.stderr).toBe(0);
	const parent = await statusOf(repo, parentId, env);
	expect(parent.run.status).toBe("completed");
	expect(parent.tasks[0]?.attempts).toBe(2);
	expect(repo.starts("quick")).toHaveLength(1);
	expect(await runIds(repo, env)).toHaveLength(2);
	expect(parent.run.children).toEqual([expect.objectContaining({ status: "completed", attempt: 1 })]);
	const result = await crew(repo.dir, ["result", parentId], 60_000, env);
	expect(result.stdout).toContain("answer: tally");
	// crew watch tells of the child under its task.
	const childId = parent.run.children?.[0]?.runId as string;
	const watched = await crew(repo.dir, ["watch", parentId], 60_000, env);
	expect(watched.stdout).toMatch(new RegExp(`boss ↳ delegated run ${childId}  completed  agent:quick  attempt 1\n`));
});

/** Starts `args` as a runner, and kills it with SIGKILL once the child's first attempt runs. */
async function killWhileChildRuns(repo: TestRepo, env: NodeJS.ProcessEnv, args: readonly string[]) {
	const runner = crewProcess(repo.dir, args, env);
	await waitFor("the child's agent started", () => repo.exists("child-started"));
	runner.kill("SIGKILL");
	await exitOf(runner);
	const runs = read(repo.dir, (r) => r.repo.runs());
	const parentId = runs.find((run) => run.goal === "g")?.id as string;
	const childId = runs.find((run) => run.goal === "nested")?.id as string;
	return { parentId, childId, worker: read(repo.dir, (r) => r.attempts(childId)[0]?.process?.pid) as number };
}

/** A parent that delegates `nested` to a child which, on its first attempt, works until stopped. */
function stallingChild(repo: TestRepo): void {
	confinedCommand(
		repo,
		"child",
		`sh -c 'test -e child-started || { touch child-started; sleep 600; }; echo child done'`,
	);
	confinedCommand(repo, "boss", `node ${CLI} agent nested --agent child`);
}

test("a parent whose runner was killed while its child ran: reconcile names the child's parent, and cancelling the parent cancels the child", async () => {
	const { repo, env } = keptRepo();
	stallingChild(repo);
	const { parentId, childId, worker } = await killWhileChildRuns(repo, env, ["run", "g", "--workflow", "agent:boss"]);
	const report = await crew(repo.dir, ["reconcile"], 60_000, env);
	expect(report.stdout).toContain(`orphaned run ${childId}: recorded running, its runner (pid`);
	expect(report.stdout).toContain(
		`(delegated by run ${parentId}, task boss: crew resume ${parentId} goes on with it, crew cancel ${parentId} ends it)`,
	);
	const cancelled = await crew(repo.dir, ["cancel", parentId], 60_000, env);
	expect(cancelled.code, cancelled.stderr).toBe(0);
	const child = await statusOf(repo, childId, env);
	expect(child.run.status).toBe("cancelled");
	expect(child.run.error).toContain(`its parent run ${parentId} was cancelled`);
	expect((await statusOf(repo, parentId, env)).run.status).toBe("cancelled");
	await waitFor("the child's worker gone", () => !isAlive(worker), 10_000);
});

test("a parent whose runner was killed while its child ran, resumed, resumes that child rather than starting another", async () => {
	const { repo, env } = keptRepo();
	stallingChild(repo);
	const { parentId, childId } = await killWhileChildRuns(repo, env, ["run", "g", "--workflow", "agent:boss"]);
	const resumed = await crew(repo.dir, ["resume", parentId], 120_000, env);
	expect(resumed.code, resumed.stderr).toBe(0);
	const parent = await statusOf(repo, parentId, env);
	expect(parent.run.status).toBe("completed");
	expect(parent.run.children).toEqual([expect.objectContaining({ runId: childId, status: "completed", attempt: 1 })]);
	expect(await runIds(repo, env)).toHaveLength(2);
	const child = await statusOf(repo, childId, env);
	expect(child.tasks[0]?.attempts).toBe(2);
	const result = await crew(repo.dir, ["result", parentId], 60_000, env);
	expect(result.stdout).toContain("child done");
});

test("delegated runs running at once are capped per parent run: one more is refused at once, naming the setting", async () => {
	const { repo, env } = keptRepo({}, { maxDepth: 2, maxRunning: 1 });
	// The first child runs until the parent lets it go, after its second delegation was answered.
	confinedCommand(repo, "napper", `sh -c 'touch napping; until [ -e release ]; do sleep 0.1; done; echo napped'`);
	confinedCommand(repo, "quick", "echo quick");
	confinedCommand(
		repo,
		"boss",
		`sh -c 'node ${CLI} agent nap --agent napper >/dev/null & until [ -e napping ]; do sleep 0.1; done; node ${CLI} agent more --agent quick 2>&1; echo second=$?; touch release; wait'`,
	);
	const done = await crew(repo.dir, ["agent", "two at once", "--agent", "boss"], 120_000, env);
	expect(done.code, done.stderr).toBe(0);
	expect(done.stdout).toMatch(
		/has 1 delegated runs running, its most at once \(nesting\.maxRunning in your user config\.json/,
	);
	expect(done.stdout).toContain("second=1");
	expect(await runIds(repo, env)).toHaveLength(2);
});

/** Three runs deep: `boss` delegates to `middle`, which delegates to `scribbler`, which writes a file. */
async function threeDeep(nesting: object): Promise<{ repo: TestRepo; env: NodeJS.ProcessEnv; stdout: string }> {
	const { repo, env } = keptRepo({}, nesting);
	confinedCommand(repo, "scribbler", `sh -c 'touch deep-file && echo wrote || echo refused'`);
	confinedCommand(repo, "middle", `node ${CLI} agent write --agent scribbler`);
	confinedCommand(repo, "boss", `node ${CLI} agent pass --agent middle`);
	const done = await crew(repo.dir, ["agent", "go deep", "--agent", "boss"], 120_000, env);
	expect(done.code, done.stderr).toBe(0);
	return { repo, env, stdout: done.stdout };
}

test("a run nested deeper than 1 is read-only unless the user's config says otherwise", async () => {
	const { repo, stdout } = await threeDeep({ maxDepth: 3 });
	expect(stdout).toContain("refused");
	expect(repo.exists("deep-file")).toBe(false);
	const deepest = read(repo.dir, (r) => r.repo.runs().find((run) => run.goal === "write")?.id) as string;
	expect(read(repo.dir, (r) => r.attempts(deepest)[0]?.sandbox)).toMatchObject({ level: "workspace", readOnly: true });
	// The first level below the user's run writes as its parent does.
	const middle = read(repo.dir, (r) => r.repo.runs().find((run) => run.goal === "pass")?.id) as string;
	expect(read(repo.dir, (r) => r.attempts(middle)[0]?.sandbox)).toMatchObject({ readOnly: false });

	const allowed = await threeDeep({ maxDepth: 3, deepWrites: true });
	expect(allowed.stdout).toContain("wrote");
	expect(allowed.repo.exists("deep-file")).toBe(true);
});
