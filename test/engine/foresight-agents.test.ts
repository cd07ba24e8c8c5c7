// @module-tag agent-cli
// @slow: two pi agents edit the same lines at once, with and without foresight
import { execFileSync } from "node:child_process";
import { afterAll, expect, test } from "vitest";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import type { ModelRequest, Turn } from "../../src/scripted-model/turns.js";
import { cliHome, crew, gitRepo, lastJson, read, type TestRepo } from "../helpers.js";

const NOTES = "line one\nline two\nline three\n";
/** Turns an agent not told of a collision spends waiting before it ends. */
const POLLS = 12;

/**
 * Two pi agents as a cooperative model would play them: each puts its line on notes.txt's first
 * line, then works on (a second's read of README.md a turn); told by crew that the other changes the same lines,
 * b leaves them to a (puts the line back, writes its own file) and a keeps its part.
 */
function cooperative(): (request: ModelRequest) => Turn {
	return (request) => {
		const prompt = request.messages.find((m) => m.role === "user")?.text ?? "";
		const me = prompt.includes("Put from-a") ? "a" : "b";
		// Where the conversation stands, from the conversation alone: the model's turns since it was told, or since it began.
		const toldAt = request.messages.findIndex((m) => m.text.includes("works beside you"));
		const told = toldAt >= 0;
		const n = request.messages.slice(Math.max(0, toldAt)).filter((m) => m.role === "assistant").length;
		if (!told) {
			if (n === 0) return { kind: "write", path: "notes.txt", content: NOTES.replace("line one", `from-${me}`) };
			return n <= POLLS
				? { kind: "delay", ms: 1000, turn: { kind: "call", tool: "read", args: { path: "README.md" } } }
				: { kind: "text", text: "done" };
		}
		if (me === "a") return { kind: "text", text: "kept my part of notes.txt" };
		if (n === 0) return { kind: "write", path: "notes.txt", content: NOTES };
		if (n === 1) return { kind: "write", path: "b.txt", content: "from-b\n" };
		return { kind: "text", text: "left the first line of notes.txt to task a" };
	};
}

const models: ScriptedModelServer[] = [];
afterAll(async () => {
	for (const model of models) await model.close();
});

/** A scripted model playing `cooperative` from its start, and the environment pointing pi at it. */
async function cooperativeModel(): Promise<{ model: ScriptedModelServer; env: NodeJS.ProcessEnv; name: string }> {
	const model = await ScriptedModelServer.start(cooperative());
	models.push(model);
	const pi = scriptedCliSetup("pi", model.url, cliHome("pi"));
	return { model, env: { ...process.env, ...pi.env }, name: pi.model };
}

/** Two pi tasks that each change notes.txt's first line, with a command agent as the team's integrator. */
function pairOfAgents(piModel: string): TestRepo {
	const repo = gitRepo();
	repo.writeFile("notes.txt", NOTES);
	execFileSync("git", ["add", "notes.txt"], { cwd: repo.dir });
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "notes"], { cwd: repo.dir });
	for (const name of ["writer-a", "writer-b"]) {
		repo.writeFile(
			`.crew/agents/${name}.md`,
			`---\nname: ${name}\nruntime: pi\nmodel: ${piModel}\nsandbox: off\n---\nYou write.\n`,
		);
	}
	repo.writeFile(
		".crew/agents/joiner.md",
		"---\nname: joiner\nruntime: command\ncommand: printf 'from-a\\nline two\\nline three\\n' > notes.txt\n---\n",
	);
	repo.writeFile(
		".crew/teams/pair.team.md",
		"---\nname: pair\n---\n- writer-a: agent=writer-a\n- writer-b: agent=writer-b\n- integrator: agent=joiner\n",
	);
	repo.workflow("pair", [
		{ id: "a", role: "writer-a", text: "Put from-a on the first line of notes.txt." },
		{ id: "b", role: "writer-b", text: "Put from-b on the first line of notes.txt." },
	]);
	return repo;
}

const resolutionTasks = (repo: TestRepo, runId: string) =>
	read(repo.dir, (r) =>
		r
			.status(runId)
			.tasks.filter((t) => t.stepId === "integrate")
			.map((t) => t.id),
	);

test("foreseen while both work, the collision is told to both agents, in their model requests; b leaves the lines to a and the run integrates without a resolution task, where without foresight it needs one", async () => {
	const { model, env, name } = await cooperativeModel();
	const repo = pairOfAgents(name);
	const args = ["run", "g", "--workflow", "pair", "--team", "pair", "--workspace", "worktree", "--json"];
	const on = await crew(repo.dir, args, 90_000, env);
	expect(on.code, on.stderr).toBe(0);
	const runId = lastJson(on.stdout).runId;
	const run = read(repo.dir, (r) => r.run(runId));
	expect(run.foreseen.map(({ tasks, files, regions }) => ({ tasks, files, regions }))).toEqual([
		{ tasks: ["a", "b"], files: ["notes.txt"], regions: [{ file: "notes.txt", lines: [1, 1] }] },
	]);
	// Each agent heard of the other's change in a model request of its own.
	for (const [me, other] of [
		["a", "b"],
		["b", "a"],
	]) {
		const heard = model.requests.filter(
			(r) =>
				r.messages.find((m) => m.role === "user")?.text.includes(`Put from-${me}`) &&
				r.messages.some(
					(m) => m.text.includes(`task ${other} works beside you`) && m.text.includes("notes.txt lines 1–1"),
				),
		);
		expect(heard.length, `${me} told of ${other}`).toBeGreaterThan(0);
	}
	expect(run.integration?.status).toBe("merged");
	expect(resolutionTasks(repo, runId)).toEqual([]);
	const status = await crew(repo.dir, ["status", runId]);
	expect(status.stdout).toContain("foreseen: a and b both change notes.txt lines 1–1");
	const watch = await crew(repo.dir, ["watch", runId]);
	expect(watch.stdout).toContain("foreseen: a and b both change notes.txt lines 1–1");

	// The same agents, played afresh, without foresight.
	const fresh = await cooperativeModel();
	const off = await crew(repo.dir, [...args, "--no-foresight"], 90_000, fresh.env);
	expect(off.code, off.stderr).toBe(0);
	const offId = lastJson(off.stdout).runId;
	expect(read(repo.dir, (r) => r.run(offId).foreseen)).toEqual([]);
	expect(resolutionTasks(repo, offId)).toEqual(["integrate.b"]);
	expect(read(repo.dir, (r) => r.run(offId).integration?.status)).toBe("resolved");
}, 180_000);
