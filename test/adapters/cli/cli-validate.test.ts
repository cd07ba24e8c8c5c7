import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { crew, TestRepo } from "../../helpers.js";

/** validate's lines for `file`, in order, without the repository's path. */
function linesAbout(stdout: string, file: string): string[] {
	return stdout
		.split("\n")
		.filter((line) => line.includes(`/${file}`))
		.map((line) => line.replace(/[^\s(]*\/\.crew\//g, ".crew/"));
}

test("validate refuses every step value run refuses, all at once, each with its file and line", async () => {
	const repo = new TestRepo().agent("worker");
	repo.writeFile(
		".crew/workflows/bad.workflow.md",
		[
			"---",
			"name: bad",
			"---",
			"## a",
			"role: worker",
			"timeout: 5 minutes",
			"",
			"Do a.",
			"",
			"## b c",
			"role: worker",
			"dependsOn: a",
			"retries: many",
			"writes: ../elsewhere",
			"approval: maybe",
			"",
			"Do b.",
		].join("\n"),
	);
	const validate = await crew(repo.dir, ["validate"]);
	expect(validate.code).toBe(2);
	expect(linesAbout(validate.stdout, "bad.workflow.md")).toEqual([
		"error: .crew/workflows/bad.workflow.md:6: step 'a': invalid timeout \"5 minutes\": expected 0 (no limit) or a duration from 1ms to 168h, such as 500ms, 30s, 5m or 1h",
		"error: .crew/workflows/bad.workflow.md:10: invalid step id \"b c\": expected 1-64 ASCII letters (A-Z, a-z), digits, '-', '_' or '.', not starting with '.' or '-' and without '..'",
		"error: .crew/workflows/bad.workflow.md:13: step 'b c': retries 'many': expected an integer >= 0",
		"error: .crew/workflows/bad.workflow.md:14: step 'b c': invalid write scope '../elsewhere': expected a path inside the repository",
		"error: .crew/workflows/bad.workflow.md:15: step 'b c': approval 'maybe': expected true or false",
	]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "bad"]);
	expect(run.code).toBe(2);
	for (const problem of [/line 6: .*"5 minutes"/, /line 10: .*"b c"/, /line 13: .*'many'/, /line 14: .*elsewhere/]) {
		expect(run.stderr).toMatch(problem);
	}
});

test("a typo of a known key is an error naming the key meant, in validate and in run", async () => {
	const repo = new TestRepo().agent("worker");
	repo.writeFile(".crew/agents/tester.md", "---\nname: tester\nruntim: command\ncommand: echo ok\n---\n");
	repo.workflow("typo", [{ id: "a" }, { id: "b", extra: { dependOn: "a" } }]);
	const validate = await crew(repo.dir, ["validate"]);
	expect(validate.code).toBe(2);
	expect(linesAbout(validate.stdout, "tester.md")).toEqual([
		"error: .crew/agents/tester.md:3: unknown agent field 'runtim'; did you mean `runtime`?",
	]);
	expect(linesAbout(validate.stdout, "typo.workflow.md")).toEqual([
		"error: .crew/workflows/typo.workflow.md:11: step 'b': unknown key 'dependOn'; did you mean `dependsOn`?",
	]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "typo"]);
	expect(run.code).toBe(2);
	expect(run.stderr).toMatch(
		/typo\.workflow\.md: line 11: step 'b': unknown key 'dependOn'; did you mean `dependsOn`\?/,
	);
	expect(repo.starts()).toEqual([]);
});

test("a name that does not exist gets the nearest one that does", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("solo", [{ id: "a", role: "workr" }]);
	repo.workflow("pair", [{ id: "build" }, { id: "ship", dependsOn: ["biuld"] }]);
	repo.writeFile(".crew/teams/crew.team.md", "---\ndefaultWorkflow: sol\n---\n- doer: agent=wroker\n");
	const workflow = await crew(repo.dir, ["run", "g", "--workflow", "revew"]);
	expect(workflow.stderr).toMatch(/no workflow 'revew': .*; did you mean `review`\?/);
	const team = await crew(repo.dir, ["run", "g", "--workflow", "solo", "--team", "fast-fx"]);
	expect(team.stderr).toMatch(/no team 'fast-fx': .*; did you mean `fast-fix`\?/);
	const agent = await crew(repo.dir, ["run", "g", "--workflow", "solo"]);
	expect(agent.stderr).toMatch(/no agent 'workr' for role 'workr' of step 'a' .*; did you mean `worker`\?/);
	const validate = await crew(repo.dir, ["validate"]);
	expect(validate.stdout).toMatch(/step 'ship' depends on unknown step 'biuld'; did you mean `build`\?/);
	expect(linesAbout(validate.stdout, "crew.team.md")).toEqual([
		"error: .crew/teams/crew.team.md:2: defaultWorkflow 'sol' does not exist; did you mean `solo`?",
		"error: .crew/teams/crew.team.md:4: role 'doer' names agent 'wroker', which does not exist; did you mean `worker`?",
	]);
});

test("validate reports what run refuses about a team's roles and an agent's runtime", async () => {
	const repo = new TestRepo().agent("worker");
	repo.writeFile(".crew/agents/typist.md", "---\nname: typist\nruntime: claud\n---\n");
	repo.workflow("pair", [{ id: "a" }, { id: "b", role: "reviewer", dependsOn: ["a"] }]);
	repo.writeFile(
		".crew/teams/duo.team.md",
		"---\ndefaultWorkflow: pair\n---\n- worker: agent=worker\n- writer: agent=typist\n",
	);
	const validate = await crew(repo.dir, ["validate"]);
	expect(validate.code).toBe(2);
	expect(validate.stdout).toMatch(
		/^error: \S*typist\.md:3: agent 'typist' \(\S*typist\.md\) uses runtime 'claud', which is not available: .*; did you mean `claude`\?/m,
	);
	expect(validate.stdout).toMatch(
		/^error: \S*pair\.workflow\.md:9: step 'b' needs role 'reviewer', which team 'duo' does not have \(roles: worker, writer\)$/m,
	);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "pair", "--team", "duo"]);
	expect(run.code).toBe(2);
	expect(run.stderr).toMatch(/step 'b' needs role 'reviewer', which team 'duo' does not have/);
});

test("validate lists what a run would execute from an untrusted project's own files", async () => {
	const repo = new TestRepo({ trusted: false }).agent("worker");
	repo.workflow("one", [{ id: "a" }]);
	const validate = await crew(repo.dir, ["validate"]);
	expect(validate.code).toBe(0);
	expect(linesAbout(validate.stdout, "one.workflow.md")).toEqual([
		expect.stringMatching(
			/^warning: \.crew\/workflows\/one\.workflow\.md: crew run of workflow 'one' is refused until you trust this repository \(crew trust\): it would run agent 'worker' \(\.crew\/agents\/worker\.md\): sh .*fake-agent\.sh/,
		),
	]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one"]);
	expect(run.stderr).toMatch(/is not trusted/);
});

test("a command agent written as a block scalar runs its lines in a real run", async () => {
	const repo = new TestRepo();
	repo.writeFile(
		".crew/agents/builder.md",
		[
			"---",
			"name: builder",
			"runtime: command",
			"command: |",
			"  echo first > out.txt",
			"",
			'  echo "second" >> out.txt',
			"  echo built",
			"---",
			"",
		].join("\n"),
	);
	repo.writeFile(".crew/workflows/build.workflow.md", "## make\nrole: builder\n\nBuild {goal}.\n");
	const run = await crew(repo.dir, ["run", "g", "--workflow", "build", "--json"]);
	expect(run.code).toBe(0);
	expect(readFileSync(join(repo.dir, "out.txt"), "utf8")).toBe("first\nsecond\n");
	const result = await crew(repo.dir, [
		"result",
		JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}").runId,
		"make",
	]);
	expect(result.stdout).toMatch(/built/);
});
