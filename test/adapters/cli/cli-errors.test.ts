// @slow: 36 bad inputs, each given to a crew process of its own
import { expect, test } from "vitest";
import { crew, TestRepo } from "../../helpers.js";

function repoWith(workflow: string): TestRepo {
	const repo = new TestRepo().agent("worker");
	repo.writeFile(
		".crew/agents/piagent.md",
		"---\nname: piagent\nruntime: gemini\n---\nAn agent of a CLI crew cannot run.\n",
	);
	repo.writeFile(
		".crew/agents/loose.md",
		"---\nname: loose\nruntime: claude\npermissions: everything\n---\nToo loose.\n",
	);
	repo.writeFile(".crew/agents/empty.md", "---\nname: empty\nruntime: command\n---\n");
	repo.writeFile(".crew/workflows/bad.workflow.md", workflow);
	return repo;
}

const cases: { name: string; workflow?: string; args?: string[]; message: RegExp }[] = [
	{
		name: "an unknown dependency",
		workflow: "## a\nrole: worker\n\nx\n\n## b\nrole: worker\ndependsOn: nope\n\ny\n",
		message: /step 'b' depends on unknown step 'nope'/,
	},
	{
		name: "a cycle",
		workflow:
			"## a\nrole: worker\ndependsOn: c\n\nx\n\n## b\nrole: worker\ndependsOn: a\n\ny\n\n## c\nrole: worker\ndependsOn: b\n\nz\n",
		message: /bad\.workflow\.md: dependency cycle: (a|b|c) -> (a|b|c) -> (a|b|c) -> (a|b|c)\n$/,
	},
	{
		name: "a duplicate step",
		workflow: "## a\nrole: worker\n\nx\n\n## a\nrole: worker\n\ny\n",
		message: /declares step 'a' twice/,
	},
	{ name: "an empty workflow", workflow: "---\nname: bad\n---\nJust prose, no steps.\n", message: /has no steps/ },
	{
		name: "an unsafe step id",
		workflow: "## ../escape\nrole: worker\n\nx\n",
		message: /invalid step id "\.\.\/escape"/,
	},
	{ name: "a step without task text", workflow: "## a\nrole: worker\n", message: /step 'a' has no task text/ },
	{
		name: "a step id outside ASCII",
		workflow: "## étape\nrole: worker\n\nx\n",
		message:
			/line 1: invalid step id "étape": expected 1-64 ASCII letters \(A-Z, a-z\), digits, '-', '_' or '\.', not starting with '\.' or '-' and without '\.\.'\n$/,
	},
	{
		name: "a file name outside ASCII",
		workflow: "## a\nrole: worker\noutput: notes/é.md\n\nx\n",
		message:
			/step 'a': output 'notes\/é\.md' must name a file in the run's folder: '\/'-separated names of 1-128 ASCII letters \(A-Z, a-z\), digits, '-', '_' or '\.', none starting with '\.' or '-' nor holding '\.\.'/,
	},
	{
		name: "a run id outside ASCII",
		args: ["status", "été"],
		message: /invalid run id "été": expected 1-64 ASCII letters \(A-Z, a-z\), digits, '-', '_' or '\.'/,
	},
	{
		name: "a role with no agent",
		workflow: "## a\nrole: ghost\n\nx\n",
		message: /no agent 'ghost' for role 'ghost' of step 'a'/,
	},
	{
		name: "a bad step timeout",
		workflow: "## a\nrole: worker\ntimeout: soon\n\nx\n",
		message: /bad\.workflow\.md: line 3: step 'a': invalid timeout "soon"/,
	},
	{
		name: "an agent of a runtime crew does not have",
		workflow: "## a\nrole: piagent\n\nx\n",
		message:
			/agent 'piagent' \(.*piagent\.md\) uses runtime 'gemini', which is not available: available are command, dry-run, pi, claude, codex/,
	},
	{
		name: "an agent with unknown permissions",
		workflow: "## a\nrole: loose\n\nx\n",
		message: /permissions 'everything': expected one of workspace, read-only, full/,
	},
	{
		name: "a command agent without a command",
		workflow: "## a\nrole: empty\n\nx\n",
		message: /agent 'empty' \(.*empty\.md\) has runtime 'command' but no command: line/,
	},
	{
		name: "a bad workflow maxConcurrency",
		workflow: "---\nmaxConcurrency: 0\n---\n## a\nrole: worker\n\nx\n",
		message: /maxConcurrency '0': expected an integer >= 1/,
	},
	{
		name: "a timeout too long to wait",
		args: ["run", "g", "--workflow", "bad", "--timeout", "9999h"],
		message: /invalid timeout "9999h": expected 0 \(no limit\) or a duration from 1ms to 168h/,
	},
	{ name: "an unknown workflow", args: ["run", "g", "--workflow", "missing"], message: /no workflow 'missing'/ },
	{
		name: "concurrency 0",
		args: ["run", "g", "--workflow", "bad", "--concurrency", "0"],
		message: /invalid concurrency '0': expected an integer >= 1/,
	},
	{
		name: "a non-numeric concurrency",
		args: ["run", "g", "--workflow", "bad", "-c", "many"],
		message: /invalid concurrency 'many'/,
	},
	{
		name: "an unknown failure policy",
		args: ["run", "g", "--workflow", "bad", "--failure", "ignore"],
		message: /'ignore' is invalid.*drain, continue, abort/,
	},
	{
		name: "an unknown runtime",
		args: ["run", "g", "--workflow", "bad", "--runtime", "gpt"],
		message: /unknown runtime 'gpt': available are command, dry-run, pi, claude, codex/,
	},
	{
		name: "a bad run timeout",
		args: ["run", "g", "--workflow", "bad", "--timeout", "-5s"],
		message: /invalid timeout "-5s"/,
	},
	{ name: "an empty goal", args: ["run", "  ", "--workflow", "bad"], message: /the goal is empty/ },
	{ name: "an unsafe run id", args: ["status", "../../etc"], message: /invalid run id "\.\.\/\.\.\/etc"/ },
	{ name: "an unknown run", args: ["cancel", "nope"], message: /no run 'nope'/ },
	{ name: "an unknown task", args: ["result", "RUN", "ghost"], message: /has no task or step 'ghost'/ },
];

test.each(cases)(
	"$name is rejected with one line naming it, and nothing is recorded",
	async ({ workflow, args, message }) => {
		const repo = repoWith(workflow ?? "## a\nrole: worker\n\nx\n");
		let runArgs = args ?? ["run", "g", "--workflow", "bad"];
		if (runArgs.includes("RUN")) {
			const ok = await crew(repo.dir, ["run", "g", "--workflow", "bad", "--json"]);
			const runId = JSON.parse(ok.stdout.trim().split("\n").pop() ?? "{}").runId as string;
			runArgs = runArgs.map((a) => (a === "RUN" ? runId : a));
		}
		const before = await crew(repo.dir, ["runs", "--json"]);
		const result = await crew(repo.dir, runArgs);
		expect(result.code).not.toBe(0);
		expect(result.stderr).toMatch(message);
		expect(result.stderr.trim().split("\n")).toHaveLength(1);
		expect(result.stderr).not.toMatch(/\n\s+at /);
		expect((await crew(repo.dir, ["runs", "--json"])).stdout).toBe(before.stdout);
	},
);

test("--debug adds the stack trace, naming lines of crew's TypeScript sources rather than of its bundle", async () => {
	const repo = repoWith("## a\nrole: ghost\n\nx\n");
	const result = await crew(repo.dir, ["run", "g", "--workflow", "bad", "--debug"]);
	expect(result.code).toBe(2);
	expect(result.stderr).toMatch(/\n\s+at /);
	expect(result.stderr).toMatch(/\n\s+at .*\bsrc\/[\w/-]+\.ts:\d+:\d+\)?\n/);
	expect(result.stderr).not.toMatch(/dist\/cli\//);
});

test.each([
	{ flag: "--budget-tokens", value: "0", message: /invalid token budget '0': expected an integer > 0/ },
	{ flag: "--budget-usd", value: "0", message: /invalid dollar budget '0': expected a number > 0/ },
	{ flag: "--budget-usd", value: "0.000", message: /invalid dollar budget '0\.000': expected a number > 0/ },
])("a budget of $flag $value is refused as a bad value, and nothing runs", async ({ flag, value, message }) => {
	const repo = repoWith("## a\nrole: worker\n\nx\n");
	const result = await crew(repo.dir, ["run", "g", "--workflow", "bad", flag, value]);
	expect(result.code).toBe(2);
	expect(result.stderr).toMatch(message);
	expect(result.stderr.trim().split("\n")).toHaveLength(1);
	expect(repo.starts()).toHaveLength(0);
});

test.each([
	{
		name: "a team member naming an agent that does not exist",
		team: "---\nname: ghost2\n---\n- worker: agent=worker\n- helper: agent=ghost\n",
		workflow: "## a\nrole: worker\n\nx\n\n## b\nrole: helper\ndependsOn: a\n\ny\n",
		message: /ghost2\.team\.md:\d+: no agent 'ghost' for role 'helper' of step 'b'/,
	},
	{ name: "a role with no agent", workflow: "## a\nrole: ghost\n\nx\n", message: /no agent 'ghost' for role 'ghost'/ },
	{
		name: "an agent of a runtime crew does not have",
		workflow: "## a\nrole: piagent\n\nx\n",
		message: /agent 'piagent' \(.*piagent\.md\) uses runtime 'gemini', which is not available/,
	},
	{
		name: "a command agent without a command",
		workflow: "## a\nrole: empty\n\nx\n",
		message: /agent 'empty' \(.*empty\.md\) has runtime 'command' but no command: line/,
	},
])(
	"a dry run refuses $name as the real plan does: exit 2, the same error, nothing recorded",
	async ({ team, workflow, message }) => {
		const repo = repoWith(workflow);
		if (team) repo.writeFile(".crew/teams/ghost2.team.md", team);
		const args = ["g", "--workflow", "bad", ...(team ? ["--team", "ghost2"] : [])];
		const real = await crew(repo.dir, ["plan", ...args]);
		expect(real.code).toBe(2);
		expect(real.stderr).toMatch(message);
		for (const verb of ["plan", "run"]) {
			const dry = await crew(repo.dir, [verb, ...args, "--runtime", "dry-run"]);
			expect([verb, dry.code, dry.stderr]).toEqual([verb, 2, real.stderr]);
		}
		expect((await crew(repo.dir, ["runs", "--json"])).stdout.trim()).toBe("[]");
	},
);

test("a dry run's plan warns of its agents what the real plan warns of, a skill found nowhere among them", async () => {
	const repo = repoWith("## a\nrole: skilled\n\nx\n\n## b\nrole: thinker\n\ny\n");
	repo.writeFile(".crew/agents/skilled.md", "---\nname: skilled\nruntime: pi\nskills: absent\n---\nSkilled.\n");
	repo.writeFile(".crew/agents/thinker.md", "---\nname: thinker\nruntime: claude\nthinking: minimal\n---\nThinks.\n");
	// Of the agent's file: whether the machine can confine a run is no matter for a dry run.
	const warnings = async (extra: string[]) => {
		const plan = await crew(repo.dir, ["plan", "g", "--workflow", "bad", "--json", ...extra]);
		expect(plan.code).toBe(0);
		const diagnostics: { file: string; message: string }[] = JSON.parse(plan.stdout).diagnostics;
		return diagnostics.filter((d) => /(skilled|thinker)\.md$/.test(d.file)).map((d) => d.message);
	};
	const real = await warnings([]);
	expect(real).toEqual([
		"runtime claude has no thinking level minimal: agent thinker runs at claude's default",
		expect.stringMatching(/^skill 'absent' of agent skilled is in none of/),
	]);
	expect(await warnings(["--runtime", "dry-run"])).toEqual(real);
});

test("an agent's name: outside ASCII is warned of, saying which characters a name may have", async () => {
	const repo = repoWith("## a\nrole: scout\n\nx\n");
	repo.writeFile(".crew/agents/scout.md", "---\nname: éclaireur\nruntime: command\ncommand: echo hi\n---\n");
	const validate = await crew(repo.dir, ["validate", "--json"]);
	const messages = JSON.parse(validate.stdout).diagnostics.map((d: { message: string }) => d.message);
	expect(messages).toContain(
		"agent name 'éclaireur' is not a valid name (1-64 ASCII letters (A-Z, a-z), digits, '-', '_' or '.', not starting with '.' or '-' and without '..'): it is known by its file name 'scout'",
	);
});
