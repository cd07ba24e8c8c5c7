import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { resourceLayers, userConfigDir, userResourceDirs } from "../../src/config/resource-layers.js";
import { ResourceLoader } from "../../src/resources/resource-loader.js";
import { crew, ROOT, TestRepo } from "../helpers.js";

const FIXTURE = join(ROOT, "test", "fixtures", "pi-crew");

/** A home with crew's user folder and pi's, both empty until a test writes there. */
function userHome(): { env: NodeJS.ProcessEnv; crewDir: string; piDir: string } {
	const home = mkdtempSync(join(tmpdir(), "crew-home-"));
	const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "xdg"), PI_CODING_AGENT_DIR: "" };
	return { env, crewDir: join(home, "xdg", "crew"), piDir: join(home, ".pi", "agent") };
}

function write(dir: string, path: string, text: string): void {
	mkdirSync(join(dir, path, ".."), { recursive: true });
	writeFileSync(join(dir, path), text);
}

function loaderFor(repo: TestRepo, env: NodeJS.ProcessEnv): ResourceLoader {
	return new ResourceLoader({ layers: resourceLayers(projectAt(repo.dir), userResourceDirs(env)), cwd: repo.dir });
}

const agent = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nbody\n`;

const EXPECTED_WARNINGS = [
	/tool 'glob' is not one crew's runtimes have/,
	/tool 'scratchpad' is not one crew's runtimes have/,
	/unknown agent field 'specRefs' kept/,
	/unknown agent field 'observability' kept/,
	/step 'review' reads 'missing.md', which no step writes/,
];

async function validatesAndPlans(cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
	const validate = await crew(cwd, ["validate", "--json"], 60_000, env);
	expect(validate.stderr).toBe("");
	expect(validate.code).toBe(0);
	const result = JSON.parse(validate.stdout);
	expect(result.errors).toBe(0);
	const messages = result.diagnostics.map((d: { message: string }) => d.message).join("\n");
	for (const warning of EXPECTED_WARNINGS) expect(messages).toMatch(warning);
	// An agent that names its pi extensions may list their tools; a step's specStrict is read, as pi-crew reads it.
	expect(messages).not.toMatch(/tool '(ask|delegate)'/);
	expect(messages).not.toMatch(/unknown key 'specStrict'/);

	const impl = await crew(
		cwd,
		["plan", "add search", "--workflow", "pc-implementation", "--team", "pc-team", "--json"],
		60_000,
		env,
	);
	expect(impl.code).toBe(0);
	const implPlan = JSON.parse(impl.stdout);
	expect(implPlan.tasks).toEqual([
		{
			id: "assess",
			role: "planner",
			agent: "pc-planner",
			runtime: "pi",
			model: "anthropic/claude-opus-4",
			thinking: "high",
			dependsOn: [],
			level: 0,
			expands: true,
		},
	]);

	const review = await crew(
		cwd,
		["plan", "add search", "--workflow", "pc-review", "--team", "pc-team", "--json"],
		60_000,
		env,
	);
	expect(review.code).toBe(0);
	const plan = JSON.parse(review.stdout);
	expect(plan.order).toEqual(["explore", "review", "tests", "verify"]);
	expect(plan.parallelGroups).toEqual([["explore"], ["review", "tests"], ["verify"]]);
	expect(plan.criticalPath).toEqual(["explore", "review", "verify"]);
	expect(plan.tasks.find((t: { id: string }) => t.id === "review")).toMatchObject({
		agent: "pc-executor",
		model: "anthropic/claude-sonnet-4-5",
	});
}

test("pi-crew's files load, validate and plan unchanged as project resources", async () => {
	const repo = new TestRepo();
	cpSync(FIXTURE, join(repo.dir, ".crew"), { recursive: true });
	await validatesAndPlans(repo.dir, userHome().env);
});

test("pi-crew's files load, validate and plan unchanged as user resources, in crew's folder or pi's", async () => {
	const repo = new TestRepo();
	const inCrew = userHome();
	cpSync(FIXTURE, inCrew.crewDir, { recursive: true });
	await validatesAndPlans(repo.dir, inCrew.env);
	const inPi = userHome();
	cpSync(FIXTURE, inPi.piDir, { recursive: true });
	await validatesAndPlans(repo.dir, inPi.env);
});

test("a team's role overrides and a workflow's comma lists read as pi-crew means them", () => {
	const repo = new TestRepo();
	cpSync(FIXTURE, join(repo.dir, ".crew"), { recursive: true });
	const loader = loaderFor(repo, userHome().env);
	const team = loader.team("pc-team").item;
	expect(team.roles.map((r) => [r.name, r.agent])).toEqual([
		["planner", "pc-planner"],
		["explorer", "pc-explorer"],
		["executor", "pc-executor"],
		["verifier", "pc-verifier"],
	]);
	const explorer = team.roles[1];
	expect(explorer).toMatchObject({ maxConcurrency: 2, description: "maps the code" });
	expect(explorer?.fallbackModels).toEqual(["anthropic/claude-haiku-4-5", "openai/gpt-5-mini"]);
	expect(explorer?.overrides.skills).toBe("search,docs");
	const executor = loader.agent("pc-executor").item;
	expect(executor.model).toBeUndefined();
	expect(executor.tools).toEqual(["read", "edit", "write", "bash", "ask", "delegate"]);
	expect(executor.fallbackModels).toEqual(["anthropic/claude-haiku-4-5", "openai/gpt-5-mini"]);
	const workflow = loader.workflow("pc-implementation").item;
	expect(workflow.steps.map((s) => s.id)).toEqual(["assess"]);
	const review = loader.workflow("pc-review").item;
	expect(review.steps[1]?.text).toBe("Review the change for {goal}, using the map.");
	expect(review.steps[3]?.dependsOn).toEqual(["review", "tests"]);
});

test("a user resource overrides a builtin; crew's user folder beats pi's", () => {
	const repo = new TestRepo();
	const { env, crewDir, piDir } = userHome();
	write(piDir, "agents/executor.md", agent("executor", "pi's executor"));
	expect(loaderFor(repo, env).agent("executor").item.description).toBe("pi's executor");
	write(crewDir, "agents/executor.md", agent("executor", "crew's executor"));
	const loaded = loaderFor(repo, env).agent("executor");
	expect(loaded.item.description).toBe("crew's executor");
	expect(loaded.diagnostics).toEqual([]);
});

test("a project resource adds names but never replaces a builtin or user one, and says so", () => {
	const repo = new TestRepo();
	const { env, crewDir } = userHome();
	write(crewDir, "agents/helper.md", agent("helper", "the user's helper"));
	repo.writeFile(".crew/agents/verifier.md", agent("verifier", "a project's verifier"));
	repo.writeFile(".crew/agents/helper.md", agent("helper", "a project's helper"));
	repo.writeFile(".crew/agents/local.md", agent("local", "a project's own agent"));
	const loader = loaderFor(repo, env);

	const verifier = loader.agent("verifier");
	expect(verifier.item.file).toBe(join(ROOT, "builtin", "agents", "verifier.md"));
	expect(verifier.diagnostics.map((d) => d.message)).toEqual([
		expect.stringMatching(/project agent 'verifier' is ignored: the builtin agent of that name .* is used/),
	]);
	const helper = loader.agent("helper");
	expect(helper.item.description).toBe("the user's helper");
	expect(helper.diagnostics[0]?.message).toMatch(/project agent 'helper' is ignored: the user agent/);
	expect(loader.agent("local").item.description).toBe("a project's own agent");

	const listed = loader.list("agent");
	expect(listed.items.find((i) => i.name === "verifier")?.layer).toBe("builtin");
	expect(listed.items.find((i) => i.name === "local")?.layer).toBe("project");
	expect(listed.diagnostics.filter((d) => /is ignored/.test(d.message))).toHaveLength(2);
});

test("pi-crew's .pi/teams/ folder is a project layer where the repository has .pi/", () => {
	const repo = new TestRepo();
	repo.writeFile(".pi/teams/agents/pi-local.md", agent("pi-local", "from .pi/teams"));
	expect(loaderFor(repo, userHome().env).agent("pi-local").item.description).toBe("from .pi/teams");
});

test("an empty XDG_CONFIG_HOME counts as unset", () => {
	expect(userConfigDir({ HOME: "/home/u", XDG_CONFIG_HOME: "" })).toBe("/home/u/.config/crew");
	expect(userConfigDir({ HOME: "/home/u", XDG_CONFIG_HOME: "  " })).toBe("/home/u/.config/crew");
	expect(userConfigDir({ HOME: "/home/u", XDG_CONFIG_HOME: "/x" })).toBe("/x/crew");
});

test("listing goes on past a bad file and names it; asking for it names every error", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/broken.md", "---\nname: broken\npermissions: root\n---\n");
	repo.writeFile(".crew/workflows/loop.workflow.md", "## a\ndependsOn: b\n\nx\n\n## b\ndependsOn: a\n\ny\n");
	const { env } = userHome();
	const listed = loaderFor(repo, env).list("agent");
	expect(listed.items.length).toBeGreaterThan(10);
	expect(listed.diagnostics.map((d) => d.message)).toContain(
		"permissions 'root': expected one of workspace, read-only, full",
	);
	const validate = await crew(repo.dir, ["validate"], 60_000, env);
	expect(validate.code).toBe(2);
	expect(validate.stdout).toMatch(/error: .*broken\.md:3: permissions 'root'/);
	expect(validate.stdout).toMatch(/error: .*loop\.workflow\.md: .*cycle/);
	expect(validate.stdout).toMatch(/invalid: 14 agents, 6 teams, 13 workflows; 2 errors/);
});
