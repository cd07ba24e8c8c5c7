import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { parseDocument } from "../../src/resources/frontmatter.js";
import { cancelLiveRuns, crew, FAKE_AGENT, ROOT, TestRepo } from "../helpers.js";

const repos: TestRepo[] = [];
afterEach(async () => {
	for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
});

/** A repository the test's runs are cancelled in when it ends. */
function newRepo(): TestRepo {
	const repo = new TestRepo();
	repos.push(repo);
	return repo;
}

/** A home whose user folders are empty until a test writes there; pi's is `piDir`. */
function userHome(): { env: NodeJS.ProcessEnv; piDir: string } {
	const home = mkdtempSync(join(tmpdir(), "crew-home-"));
	const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "xdg"), PI_CODING_AGENT_DIR: "" };
	return { env, piDir: join(home, ".pi", "agent") };
}

/** A command agent running the fake agent, answering its task, in a file whose name need not be its own. */
function fakeAgent(repo: TestRepo, name: string): string {
	return `---\nname: ${name}\nruntime: command\ncommand: node ${FAKE_AGENT} --log ${repo.log} --answer\nsandbox: off\n---\nYou are ${name}.\n`;
}

const SQUAD = "---\nname: squad\n---\n- worker: agent=mismatch does the work\n";
const FLOW = "---\nname: flow\n---\n## work\nrole: worker\n\nDo {goal}\n";

test("an agent, team and workflow are found by their name: first, then by their file name", async () => {
	const repo = newRepo();
	repo.writeFile(".crew/agents/othername.md", fakeAgent(repo, "mismatch"));
	repo.writeFile(".crew/teams/crew-squad.team.md", SQUAD);
	repo.writeFile(".crew/workflows/steps.workflow.md", FLOW);

	const agent = await crew(repo.dir, ["agent", "write the notes", "--agent", "mismatch"]);
	expect(agent).toEqual({ code: 0, stdout: "answer: write the notes\n", stderr: "" });

	const plan = await crew(repo.dir, ["plan", "g", "--workflow", "flow", "--team", "squad", "--json"]);
	expect(plan.code, plan.stderr).toBe(0);
	expect(JSON.parse(plan.stdout).tasks).toEqual([expect.objectContaining({ id: "work", agent: "mismatch" })]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "flow", "--team", "squad", "--json"]);
	expect(run.code, run.stderr).toBe(0);
	expect(repo.starts("work")).toHaveLength(1);

	// A file name still finds its file when no file has that name.
	const shown = await crew(repo.dir, ["show", "agent", "othername"]);
	expect(shown.code, shown.stderr).toBe(0);
	expect(shown.stdout).toMatch(/^agent mismatch {2}\(.*\/\.crew\/agents\/othername\.md\)/);
	const byFiles = await crew(repo.dir, ["plan", "g", "--workflow", "steps", "--team", "crew-squad", "--json"]);
	expect(byFiles.code, byFiles.stderr).toBe(0);
	expect(JSON.parse(byFiles.stdout)).toMatchObject({ workflow: "flow", team: "squad", order: ["work"] });

	const list = await crew(repo.dir, ["list", "--json"]);
	const names = (JSON.parse(list.stdout) as { kind: string; name: string; layer: string }[])
		.filter((r) => r.layer === "project")
		.map((r) => `${r.kind} ${r.name}`);
	expect(names).toEqual(["agent mismatch", "team squad", "workflow flow"]);
});

test("a user layer's resources are found by their name: too, and a name overrides as a file name did", async () => {
	const repo = newRepo();
	const { env, piDir } = userHome();
	mkdirSync(join(piDir, "agents"), { recursive: true });
	writeFileSync(join(piDir, "agents", "othername.md"), fakeAgent(repo, "mismatch"));
	writeFileSync(join(piDir, "agents", "my-executor.md"), "---\nname: executor\ndescription: the user's\n---\n");
	// A project file may add a name, never replace a builtin one, whatever the file is called.
	repo.writeFile(".crew/agents/local-verifier.md", "---\nname: verifier\ndescription: the project's\n---\n");

	const plan = await crew(repo.dir, ["plan", "g", "--workflow", "agent:mismatch", "--json"], 60_000, env);
	expect(plan.code, plan.stderr).toBe(0);
	expect(JSON.parse(plan.stdout).tasks).toEqual([expect.objectContaining({ agent: "mismatch" })]);
	repo.writeFile(".crew/teams/squad.team.md", SQUAD);
	repo.writeFile(".crew/workflows/flow.workflow.md", FLOW);
	const teamed = await crew(repo.dir, ["plan", "g", "--workflow", "flow", "--team", "squad", "--json"], 60_000, env);
	expect(teamed.code, teamed.stderr).toBe(0);

	const executor = JSON.parse((await crew(repo.dir, ["show", "agent", "executor", "--json"], 60_000, env)).stdout);
	expect(executor).toMatchObject({ name: "executor", description: "the user's" });
	expect(executor.file).toBe(join(piDir, "agents", "my-executor.md"));
	const verifier = JSON.parse((await crew(repo.dir, ["show", "agent", "verifier", "--json"], 60_000, env)).stdout);
	expect(verifier.file).toBe(join(ROOT, "builtin", "agents", "verifier.md"));
	expect(verifier.diagnostics.map((d: { message: string }) => d.message)).toEqual([
		expect.stringMatching(/project agent 'verifier' is ignored: the builtin agent of that name .* is used/),
	]);
});

test("two files of one layer that claim one name are refused, naming both files", async () => {
	const repo = newRepo();
	const agents = join(repo.dir, ".crew", "agents");
	repo.writeFile(".crew/agents/twin.md", fakeAgent(repo, "twin"));
	repo.writeFile(".crew/agents/other.md", fakeAgent(repo, "twin"));
	const workflows = join(repo.dir, ".crew", "workflows");
	repo.writeFile(".crew/workflows/one.workflow.md", FLOW);
	repo.writeFile(".crew/workflows/two.workflow.md", FLOW.replace("work", "labour"));

	const agent = await crew(repo.dir, ["agent", "g", "--agent", "twin"]);
	expect(agent.code).toBe(2);
	expect(agent.stderr.trim().split("\n")).toEqual([
		`crew: agent 'twin' is defined twice in ${agents}: ${join(agents, "other.md")} and ${join(agents, "twin.md")}; rename one (its name: or its file)`,
	]);
	const plan = await crew(repo.dir, ["plan", "g", "--workflow", "flow"]);
	expect(plan.code).toBe(2);
	expect(plan.stderr).toContain(
		`workflow 'flow' is defined twice in ${workflows}: ${join(workflows, "one.workflow.md")} and ${join(workflows, "two.workflow.md")}`,
	);
	expect(repo.starts()).toEqual([]);

	const validate = await crew(repo.dir, ["validate"]);
	expect(validate.code).toBe(2);
	expect(validate.stdout).toContain(
		`error: ${join(agents, "other.md")}: agent 'twin' is defined twice in ${agents}: ${join(agents, "other.md")} and ${join(agents, "twin.md")}`,
	);
	expect(validate.stdout).toContain(`workflow 'flow' is defined twice in ${workflows}`);
});

test("validate warns of a name: that differs from its file name, naming the file and both names", async () => {
	const repo = newRepo();
	repo.writeFile(".crew/agents/othername.md", fakeAgent(repo, "mismatch"));
	repo.writeFile(".crew/agents/same.md", fakeAgent(repo, "same"));
	repo.writeFile(".crew/teams/crew-squad.team.md", SQUAD);
	// A role may name its agent by the agent's file name too, as a run finds it.
	repo.writeFile(".crew/teams/by-file.team.md", "---\nname: by-file\n---\n- worker: agent=othername\n");
	const validate = await crew(repo.dir, ["validate"]);
	expect(validate.code, validate.stdout).toBe(0);
	const file = join(repo.dir, ".crew", "agents", "othername.md");
	const team = join(repo.dir, ".crew", "teams", "crew-squad.team.md");
	expect(validate.stdout.split("\n").filter((l) => l.includes(repo.dir))).toEqual([
		`warning: ${file}: agent name 'mismatch' differs from its file name 'othername': it is found by either, its name first`,
		`warning: ${team}: team name 'squad' differs from its file name 'crew-squad': it is found by either, its name first`,
	]);
	expect(validate.stdout).toMatch(/^valid: .* 0 errors, 2 warnings$/m);
});

test("each of crew's own resource files declares its file's name, which finding a name relies on", () => {
	const suffixes = /(\.team\.md|\.workflow\.md|\.md)$/;
	for (const kind of ["agents", "teams", "workflows"]) {
		const folder = join(ROOT, "builtin", kind);
		for (const file of readdirSync(folder).filter((f) => f.endsWith(".md"))) {
			const { fields } = parseDocument(readFileSync(join(folder, file), "utf8"), file, []);
			expect(`${kind}/${file}: ${fields.name?.value}`).toBe(`${kind}/${file}: ${file.replace(suffixes, "")}`);
		}
	}
});
