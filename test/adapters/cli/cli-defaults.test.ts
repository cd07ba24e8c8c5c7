// @module-tag agent-cli
// @slow: the default team's real pi agents run a whole workflow, once per way of choosing it
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import { actThenReport } from "../../../src/scripted-model/turns.js";
import { CLI, type CliResult, crew, gitRepo, TestRepo } from "../../helpers.js";

const servers: ScriptedModelServer[] = [];
afterAll(async () => {
	for (const server of servers) await server.close();
});

interface StatusJson {
	run: { id: string; status: string; goal: string; team: string | null; workflow: string };
	tasks: { id: string; role: string; status: string }[];
}

async function statusOf(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<StatusJson> {
	const shown = await crew(dir, ["status", "--json"], 60_000, env);
	expect(shown.code, shown.stderr).toBe(0);
	return JSON.parse(shown.stdout) as StatusJson;
}

/** The CLI with `input` on its standard input. */
function crewWithInput(cwd: string, args: readonly string[], input: string): Promise<CliResult> {
	return new Promise((done) => {
		const child = execFile(process.execPath, [CLI, ...args], { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
			done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
		});
		child.stdin?.end(input);
	});
}

/** A user config folder whose `teams/` holds `files`, and the environment that makes crew read it. */
function userLayer(files: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
	const home = mkdtempSync(join(tmpdir(), "crew-home-"));
	for (const [path, text] of Object.entries(files)) {
		const full = join(home, "crew", path);
		mkdirSync(join(full, ".."), { recursive: true });
		writeFileSync(full, text);
	}
	return { ...process.env, XDG_CONFIG_HOME: home };
}

test("without --workflow, crew run and crew plan use the team's defaultWorkflow", async () => {
	const repo = new TestRepo().agent("worker");
	repo.workflow("mine", [{ id: "first" }, { id: "second", dependsOn: ["first"] }]);
	repo.writeFile(
		".crew/teams/mates.team.md",
		"---\nname: mates\ndefaultWorkflow: mine\n---\n\n- worker: agent=worker does the work\n",
	);
	const run = await crew(repo.dir, ["run", "ship it", "--team", "mates"]);
	expect(run.code, run.stderr).toBe(0);
	expect(run.stdout).toMatch(/run \S+: 2 tasks, workflow mine/);
	const status = await statusOf(repo.dir);
	expect(status.run).toMatchObject({ status: "completed", team: "mates", workflow: "mine" });
	expect(status.tasks.map((t) => [t.id, t.status])).toEqual([
		["first", "completed"],
		["second", "completed"],
	]);
	const plan = await crew(repo.dir, ["plan", "ship it", "--team", "mates", "--json"]);
	expect(plan.code, plan.stderr).toBe(0);
	expect(JSON.parse(plan.stdout)).toMatchObject({ team: "mates", workflow: "mine" });

	repo.writeFile(".crew/teams/loose.team.md", "---\nname: loose\n---\n\n- worker: agent=worker\n");
	const none = await crew(repo.dir, ["run", "ship it", "--team", "loose"]);
	expect(none.code).toBe(2);
	expect(none.stderr).toMatch(
		/team 'loose' \(.*loose\.team\.md\) has no defaultWorkflow, and the run names no workflow/,
	);
});

test('crew run "<goal>" alone runs the default team with its default workflow', async () => {
	// crew's own default team: its agents are pi's, so the dry-run runtime stands in for them.
	const repo = new TestRepo();
	const builtin = await crew(repo.dir, ["run", "tidy the code", "--runtime", "dry-run"]);
	expect(builtin.code, builtin.stderr).toBe(0);
	const status = await statusOf(repo.dir);
	expect(status.run).toMatchObject({ status: "completed", team: "default", workflow: "default" });
	expect(status.tasks.map((t) => `${t.id}:${t.role}`)).toEqual([
		"explore:explorer",
		"plan:planner",
		"execute:executor",
		"verify:verifier",
	]);

	// The user's own default team, of command agents, runs with nothing but the goal.
	const env = userLayer({
		"agents/echoer.md": '---\nname: echoer\nruntime: command\ncommand: echo "echoed $CREW_STEP_ID"\n---\n',
		"workflows/echo.workflow.md": "---\nname: echo\n---\n\n## say\nrole: echoer\n\nSay {goal}\n",
		"teams/default.team.md": "---\nname: default\ndefaultWorkflow: echo\n---\n\n- echoer: agent=echoer\n",
	});
	const other = new TestRepo();
	const alone = await crew(other.dir, ["run", "say hello"], 60_000, env);
	expect(alone.code, alone.stderr).toBe(0);
	const run = await statusOf(other.dir, env);
	expect(run.run).toMatchObject({ status: "completed", team: "default", workflow: "echo", goal: "say hello" });
	const result = await crew(other.dir, ["result", run.run.id, "say"], 60_000, env);
	expect(result.stdout).toBe("echoed say\n");
});

test("--goal-file reads the goal from a file, and - from standard input, as --goal-file or as the goal", async () => {
	const repo = new TestRepo().agent("worker", "--answer");
	repo.workflow("one", [{ id: "a", text: "{goal}" }]);
	repo.writeFile("goal.md", "fix the slug function\n\nkeep the tests green\n");
	const fromFile = await crew(repo.dir, ["run", "--goal-file", "goal.md", "--workflow", "one"]);
	expect(fromFile.code, fromFile.stderr).toBe(0);
	expect((await statusOf(repo.dir)).run.goal).toBe("fix the slug function\n\nkeep the tests green");

	const piped = await crewWithInput(repo.dir, ["run", "--goal-file", "-", "--workflow", "one"], "from a pipe\n");
	expect(piped.code, piped.stderr).toBe(0);
	const pipedRun = await statusOf(repo.dir);
	expect(pipedRun.run.goal).toBe("from a pipe");
	expect((await crew(repo.dir, ["result", pipedRun.run.id, "a"])).stdout).toBe("answer: from a pipe\n");

	const dash = await crewWithInput(repo.dir, ["run", "-", "--workflow", "one"], "from a dash\n");
	expect(dash.code, dash.stderr).toBe(0);
	expect((await statusOf(repo.dir)).run.goal).toBe("from a dash");

	const planned = await crewWithInput(repo.dir, ["plan", "--goal-file", "-", "--workflow", "one", "--json"], "plan me");
	expect(planned.code, planned.stderr).toBe(0);
	expect(JSON.parse(planned.stdout).goal).toBe("plan me");

	const both = await crew(repo.dir, ["run", "a goal", "--goal-file", "goal.md", "--workflow", "one"]);
	expect(both.code).toBe(2);
	expect(both.stderr).toMatch(/both a goal "a goal" and --goal-file goal\.md were given: expected one of them/);
	const neither = await crew(repo.dir, ["run", "--workflow", "one"]);
	expect(neither.code).toBe(2);
	expect(neither.stderr).toMatch(/no goal: expected one as the argument/);
	const missing = await crew(repo.dir, ["run", "--goal-file", "nowhere.md", "--workflow", "one"]);
	expect(missing.code).toBe(2);
	expect(missing.stderr).toMatch(/cannot read the goal from --goal-file nowhere\.md: ENOENT/);
	const empty = await crewWithInput(repo.dir, ["run", "-", "--workflow", "one"], "  \n");
	expect(empty.code).toBe(2);
	expect(empty.stderr).toMatch(/the goal read from standard input is empty/);
	expect(JSON.parse((await crew(repo.dir, ["runs", "--json"])).stdout)).toHaveLength(3);
});

/**
 * A new repository without crew: its own `.git`, so crew takes it as the project whatever the
 * folders above it hold.
 */
function freshRepository(): string {
	const dir = mkdtempSync(join(tmpdir(), "crew-init-"));
	mkdirSync(join(dir, ".git"));
	return dir;
}

test("crew init writes a starter team that runs as it is: real pi agents scout, build and check on the scripted model", async () => {
	const repo = gitRepo();
	const fresh = freshRepository();
	const init = await crew(fresh, ["init"]);
	expect(init.code, init.stderr).toBe(0);
	expect(init.stdout).toContain('next: crew run "<goal>" --team starter');
	const files = (folder: string) => readdirSync(join(fresh, ".crew", folder)).sort();
	expect([files("agents"), files("teams"), files("workflows")]).toEqual([
		["builder.md", "checker.md", "scout.md"],
		["starter.team.md"],
		["starter.workflow.md"],
	]);
	expect((await crew(fresh, ["validate"])).stdout).toMatch(/0 errors, 0 warnings/);

	// What init writes, copied unchanged into a git repository, run by real pi processes.
	for (const folder of ["agents", "teams", "workflows"]) {
		for (const name of files(folder)) {
			repo.writeFile(`.crew/${folder}/${name}`, readFileSync(join(fresh, ".crew", folder, name), "utf8"));
		}
	}
	const server = await ScriptedModelServer.start(
		actThenReport(() => ({ kind: "shell", command: "ls README.md" }), "README.md is there\nPASS"),
	);
	servers.push(server);
	const pi = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	const env = { ...process.env, ...pi.env };
	const run = await crew(repo.dir, ["run", "say what is here", "--team", "starter", "--model", pi.model], 120_000, env);
	expect(run.code, run.stdout + run.stderr).toBe(0);
	const status = await statusOf(repo.dir, env);
	expect(status.run).toMatchObject({ status: "completed", team: "starter", workflow: "starter" });
	expect(status.tasks.map((t) => `${t.id}:${t.role}:${t.status}`)).toEqual([
		"scout:scout:completed",
		"build:builder:completed",
		"check:checker:completed",
	]);
	// Each agent called the shell tool, then reported: two requests a task.
	expect(server.requests).toHaveLength(6);
});

test("crew init --bare makes only the empty folders; init never overwrites a file it finds", async () => {
	const bare = freshRepository();
	const made = await crew(bare, ["init", "--bare"]);
	expect(made.code, made.stderr).toBe(0);
	for (const folder of ["agents", "teams", "workflows"]) expect(readdirSync(join(bare, ".crew", folder))).toEqual([]);
	expect(made.stdout).not.toContain("starter");

	const edited = mkdtempSync(join(tmpdir(), "crew-init-"));
	mkdirSync(join(edited, ".crew", "agents"), { recursive: true });
	writeFileSync(join(edited, ".crew", "agents", "scout.md"), "---\nname: scout\nruntime: dry-run\n---\nmine\n");
	const again = await crew(edited, ["init"]);
	expect(again.code, again.stderr).toBe(0);
	expect(again.stdout).toContain("kept .crew/agents/scout.md (it exists)");
	expect(readFileSync(join(edited, ".crew", "agents", "scout.md"), "utf8")).toContain("mine");
	expect(readdirSync(join(edited, ".crew", "agents")).sort()).toEqual(["builder.md", "checker.md", "scout.md"]);
});
