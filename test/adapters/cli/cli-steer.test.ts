import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, TestRepo, waitFor } from "../../helpers.js";

test("crew steer names what became of a message: a command agent's is refused with why, a queued task's is refused naming its status, bad input is refused", async () => {
	const repo = new TestRepo();
	const gate = join(repo.dir, "gates");
	mkdirSync(gate);
	repo.agent("worker", `--gate ${gate}`);
	repo.workflow("pair", [{ id: "a" }, { id: "b", dependsOn: ["a"] }]);
	const started = await crew(repo.dir, ["run", "g", "--workflow", "pair", "--detach", "--json"]);
	expect(started.code).toBe(0);
	const { runId } = JSON.parse(started.stdout.trim().split("\n").pop() ?? "{}");
	await waitFor("task a to run", () => repo.starts("a").length === 1);

	const command = await crew(repo.dir, ["steer", runId, "a", "look at the tests too"]);
	expect(command.code).toBe(1);
	expect(command.stdout).toBe(
		"message 1 to task a: refused: a command agent cannot be steered: it takes no messages\n",
	);
	writeFileSync(join(repo.dir, "message.txt"), "from a file\n");
	const fromFile = await crew(repo.dir, ["steer", runId, "a", "--file", "message.txt", "--json"]);
	expect(JSON.parse(fromFile.stdout)).toMatchObject({ runId, taskId: "a", message: 2, state: "refused" });

	const queued = await crew(repo.dir, ["steer", runId, "b", "start with the docs"]);
	expect(queued.code).toBe(1);
	expect(queued.stderr).toContain("task b is queued: only a running task's agent can be steered");
	const none = await crew(repo.dir, ["steer", runId, "a"]);
	expect(none.code).toBe(2);
	expect(none.stderr).toContain(
		'no message: expected one as the argument (crew steer <runId> <task> "<message>"), or --file <path>',
	);
	const both = await crew(repo.dir, ["steer", runId, "a", "x", "--file", "message.txt"]);
	expect(both.code).toBe(2);
	const long = await crew(repo.dir, ["steer", runId, "a", "x".repeat(40_000)]);
	expect(long.code).toBe(2);
	expect(long.stderr).toContain("a steering message of 40000 characters is too long: at most 32768");
	const unknown = await crew(repo.dir, ["steer", runId, "zz", "x"]);
	expect(unknown.code).toBe(2);
	expect(unknown.stderr).toContain(`run ${runId} has no task or step 'zz'`);

	const logs = await crew(repo.dir, ["logs", runId, "a"]);
	expect(logs.stdout).toContain("person: message 1: look at the tests too");
	expect(logs.stdout).toContain("error: message 1 refused: a command agent cannot be steered");
	expect(logs.stdout).toContain("person: message 2: from a file");

	writeFileSync(join(gate, "a"), "");
	writeFileSync(join(gate, "b"), "");
	const until = Date.now() + 30_000;
	let status = "";
	while (!["completed", "failed"].includes(status) && Date.now() < until) {
		status = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout).run.status;
	}
	expect(status).toBe("completed");
});
