// @module-tag agent-cli
// @slow: what each real CLI is given (context files, skills, extensions) is read from its own requests
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { Crew } from "../../src/engine/crew.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { type ScriptedCliName, scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import type { ModelRequest, Turn } from "../../src/scripted-model/turns.js";
import { cliHome, PI_1, ROOT, TestRepo } from "../helpers.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

const BODY = "AGENT-BODY: you are the scribe.";
const CONTEXT = "PROJECT-CONTEXT-LINE from the project's context file";

/** What each CLI's own system prompt starts with, and the file it reads as the project's context. */
const CLIS: readonly {
	readonly label: string;
	readonly name: ScriptedCliName;
	readonly command: readonly string[];
	readonly own: string;
	readonly contextFile: string;
}[] = [
	{ label: "pi 1.x", name: "pi", command: PI_1, own: "You are a coding assistant", contextFile: "AGENTS.md" },
	{
		label: "claude",
		name: "claude",
		command: [join(ROOT, "node_modules", ".bin", "claude")],
		own: "You are Claude Code",
		contextFile: "CLAUDE.md",
	},
	{
		label: "codex",
		name: "codex",
		command: [join(ROOT, "node_modules", ".bin", "codex")],
		own: "You are Codex",
		contextFile: "AGENTS.md",
	},
];

/** A crew for `repo` whose `cli` runs with `env` (the scripted model's). */
function crewOn(repo: TestRepo, cli: (typeof CLIS)[number], env: Readonly<Record<string, string>>): Crew {
	return new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({
			graceMs: 500,
			[cli.name]: { env: { PATH: process.env.PATH, ...env }, command: cli.command },
		}),
		pollMs: 20,
	});
}

/** Runs one task of an agent with `fields` in its frontmatter; the model's first request, and the plan's warnings. */
async function firstRequest(
	cli: (typeof CLIS)[number],
	fields: string,
	prepare: (repo: TestRepo, home: string) => void = () => {},
	team?: string,
): Promise<{ request: ModelRequest; text: string; warnings: string[] }> {
	const server = await ScriptedModelServer.start(() => ({ kind: "text", text: "done" }));
	servers.push(server);
	const repo = new TestRepo();
	const home = cliHome(cli.name);
	const scripted = scriptedCliSetup(cli.name, server.url, home);
	repo.writeFile(
		".crew/agents/scribe.md",
		`---\nname: scribe\nruntime: ${cli.name}\nmodel: ${scripted.model}\n${fields}---\n${BODY}\n`,
	);
	repo.writeFile(cli.contextFile, `${CONTEXT}\n`);
	repo.workflow("one", [{ id: "a", role: "scribe", text: "answer" }]);
	prepare(repo, home);
	const crew = crewOn(repo, cli, scripted.env);
	try {
		const plan = await crew.plan({ goal: "g", workflow: "one", ...(team ? { team } : {}) });
		const runId = crew.create(plan);
		expect(await crew.execute(runId)).toBe("completed");
		const request = server.requests.find((r) => r.tools.length > 0) as ModelRequest;
		const text = request.messages
			.filter((m) => m.role !== "user" || !m.text.startsWith("answer"))
			.map((m) => m.text)
			.join("\n");
		return { request, text, warnings: plan.diagnostics.map((d) => d.message) };
	} finally {
		crew.close();
	}
}

describe.each(CLIS)("$label", (cli) => {
	test("by pi-crew's default, the agent's system prompt replaces the CLI's own; `systemPromptMode: append` keeps both", async () => {
		const replaced = await firstRequest(cli, "");
		expect(replaced.text).toContain(BODY);
		expect(replaced.text).not.toContain(cli.own);
		const appended = await firstRequest(cli, "systemPromptMode: append\n");
		expect(appended.text).toContain(BODY);
		expect(appended.text).toContain(cli.own);
	});

	test("the project's context file reaches the agent only with `inheritProjectContext: true` (Claude Code reads it always, and says so when told not to)", async () => {
		const without = await firstRequest(cli, "inheritProjectContext: false\n");
		const withIt = await firstRequest(cli, "inheritProjectContext: true\n");
		expect(withIt.text).toContain(CONTEXT);
		if (cli.name === "claude") {
			expect(without.text).toContain(CONTEXT);
			expect(without.warnings).toContain(
				"runtime claude has no equivalent of inheritProjectContext: agent scribe runs without it",
			);
		} else {
			expect(without.text).not.toContain(CONTEXT);
			expect(without.warnings).toEqual([]);
		}
	});
});

describe("pi's skills and extensions", () => {
	const pi = CLIS[0] as (typeof CLIS)[number];
	const skill = (dir: string, name: string) => {
		mkdirSync(join(dir, name), { recursive: true });
		writeFileSync(join(dir, name, "SKILL.md"), `---\nname: ${name}\ndescription: SKILL-${name} helps\n---\nDo it.\n`);
	};

	test("a skill named in `skills:` is found in the project's folders and given; pi's own finds only with `inheritSkills: true`", async () => {
		const prepare = (repo: TestRepo, home: string) => {
			skill(join(repo.dir, ".crew", "skills"), "named");
			skill(join(home, "pi-agent", "skills"), "found");
		};
		const named = await firstRequest(pi, "skills: named, absent\n", prepare);
		expect(named.text).toContain("SKILL-named helps");
		expect(named.text).not.toContain("SKILL-found helps");
		expect(named.warnings).toEqual([
			"skill 'absent' of agent scribe is in none of .crew/skills, .pi/skills, .agents/skills, ~/.pi/agent/skills, ~/.agents/skills: it is left out",
		]);
		const inherited = await firstRequest(pi, "inheritSkills: true\n", prepare);
		expect(inherited.text).toContain("SKILL-found helps");
	});

	test("a team role's `skills=` and a step's `skills:` add to the agent's own; a step's `skills: false` leaves it none", async () => {
		const prepare = (stepSkills: string) => (repo: TestRepo, home: string) => {
			for (const name of ["own", "ofrole", "ofstep"]) skill(join(repo.dir, ".crew", "skills"), name);
			skill(join(home, "pi-agent", "skills"), "found");
			repo.writeFile(".crew/teams/crewed.team.md", "---\nname: crewed\n---\n- scribe: agent=scribe skills=ofrole\n");
			repo.workflow("one", [{ id: "a", role: "scribe", text: "answer", extra: { skills: stepSkills } }]);
		};
		const added = await firstRequest(pi, "skills: own\ninheritSkills: true\n", prepare("ofstep"), "crewed");
		for (const name of ["own", "ofrole", "ofstep", "found"]) expect(added.text).toContain(`SKILL-${name} helps`);
		const none = await firstRequest(pi, "skills: own\ninheritSkills: true\n", prepare("false"), "crewed");
		for (const name of ["own", "ofrole", "ofstep", "found"]) expect(none.text).not.toContain(`SKILL-${name} helps`);
	});

	test("`extensions:` loads those named instead of pi's own finds, less `excludeExtensions:`", async () => {
		const tool = (name: string) =>
			`export default function (pi) { pi.registerTool({ name: "${name}", label: "${name}", description: "probe", parameters: { type: "object", properties: {} }, async execute() { return { content: [{ type: "text", text: "ok" }], details: {} }; } }); }\n`;
		const prepare = (repo: TestRepo, home: string) => {
			repo.writeFile("ext/kept.js", tool("kept_tool"));
			repo.writeFile("ext/dropped.js", tool("dropped_tool"));
			mkdirSync(join(home, "pi-agent", "extensions"), { recursive: true });
			writeFileSync(join(home, "pi-agent", "extensions", "own.js"), tool("own_tool"));
		};
		const own = await firstRequest(pi, "", prepare);
		expect(own.request.tools).toContain("own_tool");
		const named = await firstRequest(
			pi,
			"extensions: ext/kept.js, ext/dropped.js\nexcludeExtensions: dropped\n",
			prepare,
		);
		expect(named.request.tools).toContain("kept_tool");
		expect(named.request.tools).not.toContain("dropped_tool");
		expect(named.request.tools).not.toContain("own_tool");
	});
});

describe.each(CLIS.filter((c) => c.name !== "claude"))("$label's maxTurns, which crew holds it to", (cli) => {
	/** Runs an agent with `maxTurns: 2` whose model works on (a shell call each turn), until `obeys` and it is told to stop. */
	async function run(obeys: boolean) {
		const told = (r: ModelRequest) => r.messages.some((m) => m.text.includes("You have used your 2 turns"));
		// crew stops the agent at its 8th turn (2, and 5 more to wrap up). Codex may spend one request
		// more on taking crew's message (the response under way when it is told is dropped); one more
		// may be in flight when crew stops it. Past those the model never answers, so however loaded
		// the machine no further request can come, and a crew that did not stop the agent would leave
		// the run waiting and the test failing.
		const answered = cli.name === "codex" ? 9 : 8;
		let requests = 0;
		const server = await ScriptedModelServer.start((r): Turn => {
			requests += 1;
			if (obeys && told(r)) return { kind: "text", text: "WRAPPED: this is what I did" };
			const work: Turn = { kind: "shell", command: "echo working" };
			return requests > answered ? { kind: "hang" } : work;
		});
		servers.push(server);
		const repo = new TestRepo();
		const scripted = scriptedCliSetup(cli.name, server.url, cliHome(cli.name));
		repo.writeFile(
			".crew/agents/busy.md",
			`---\nname: busy\nruntime: ${cli.name}\nmodel: ${scripted.model}\nmaxTurns: 2\nsandbox: off\n---\nYou work.\n`,
		);
		repo.workflow("one", [{ id: "a", role: "busy", text: "work", extra: { retries: "0" } }]);
		const crew = crewOn(repo, cli, scripted.env);
		try {
			const plan = await crew.plan({ goal: "g", workflow: "one" });
			expect(plan.diagnostics.map((d) => d.message).filter((m) => m.includes("maxTurns"))).toEqual([]);
			const runId = crew.create(plan);
			const status = await crew.execute(runId);
			const task = crew.snapshot(runId).tasks[0];
			return { status, server, told, task, answered };
		} finally {
			crew.close();
		}
	}

	test("at its limit a working agent is told to wrap up, and its answer after that completes the task", async () => {
		const { status, server, told } = await run(true);
		expect(status).toBe("completed");
		// Told as its third request is made; a CLI takes a message at its next request once it has it,
		// which may be the one after, if its next was already under way when the message came.
		const first = server.requests.findIndex(told);
		expect(first).toBeGreaterThanOrEqual(2);
		expect(first).toBeLessThanOrEqual(3);
		expect(server.requests).toHaveLength(first + 1);
		expect(server.requests.at(-1)?.messages.at(-1)?.text).toContain("give your final answer");
	});

	test("an agent that works on past its limit and five more turns is stopped, its attempt failed saying so", async () => {
		const { status, server, task, answered } = await run(false);
		expect(status).toBe("failed");
		expect(task?.error).toContain("its agent took 8 turns, past its maxTurns of 2 and 5 more to wrap up");
		expect(server.requests.length).toBeGreaterThanOrEqual(8);
		expect(server.requests.length).toBeLessThanOrEqual(answered + 1);
	});
});
