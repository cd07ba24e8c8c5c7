// @module-tag agent-cli
// @slow: each CLI is run from a calling session to read which model and thinking level reach it
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { Crew } from "../../src/engine/crew.js";
import type { PlanInput } from "../../src/engine/planning/plan-input.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { type ScriptedCliName, scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import { cliHome, PI_1, ROOT, TestRepo } from "../helpers.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

/**
 * Each agent CLI, and a thinking level for the whole run with what its requests then say: `off` is
 * Claude Code's thinking disabled and Codex's effort `none`; pi, which then asks for no effort at
 * all, is given `minimal` instead.
 */
const CLIS: readonly {
	readonly label: string;
	readonly name: ScriptedCliName;
	readonly command?: readonly string[];
	/** A model whose requests carry an effort (Claude Code sends one only for some models). */
	readonly model?: string;
	readonly level: "off" | "minimal";
	readonly effort: string;
}[] = [
	{ label: "pi 0.73 (bundled)", name: "pi", level: "minimal", effort: "minimal" },
	{ label: "pi 1.x", name: "pi", command: PI_1, level: "minimal", effort: "minimal" },
	{
		label: "claude",
		name: "claude",
		command: [join(ROOT, "node_modules", ".bin", "claude")],
		model: "claude-sonnet-4-6",
		level: "off",
		effort: "off",
	},
	{
		label: "codex",
		name: "codex",
		command: [join(ROOT, "node_modules", ".bin", "codex")],
		level: "off",
		effort: "none",
	},
];

describe.each(CLIS)("$label: the model and thinking level a worker runs on", (cli) => {
	/**
	 * Runs a workflow of two steps: `inherit`, by an agent naming neither a model nor a thinking
	 * level, and `own`, by one naming both. Returns the model and effort each step's requests carried.
	 */
	async function run(input: Partial<PlanInput>, sessionModel: (model: string) => string | undefined) {
		const server = await ScriptedModelServer.start((request) => {
			const prompt = request.messages.filter((m) => m.role === "user").pop()?.text ?? "";
			return { kind: "text", text: /STEP (\w+)/.exec(prompt)?.[1] ?? "?" };
		});
		servers.push(server);
		const repo = new TestRepo();
		const scripted = scriptedCliSetup(cli.name, server.url, cliHome(cli.name));
		const own = cli.model ?? scripted.model;
		repo.writeFile(".crew/agents/inherit.md", `---\nname: inherit\nruntime: ${cli.name}\nmodel: false\n---\nYou.\n`);
		repo.writeFile(
			".crew/agents/own.md",
			`---\nname: own\nruntime: ${cli.name}\nmodel: ${own}\nthinking: high\n---\nYou.\n`,
		);
		repo.workflow("two", [
			{ id: "a", role: "inherit", text: "STEP inherit" },
			{ id: "b", role: "own", dependsOn: ["a"], text: "STEP own" },
		]);
		const crew = new Crew({
			project: projectAt(repo.dir),
			runtimes: RuntimeRegistry.standard({
				graceMs: 500,
				[cli.name]: {
					env: { PATH: process.env.PATH, ...scripted.env },
					...(cli.command ? { command: cli.command } : {}),
				},
			}),
			pollMs: 20,
		});
		try {
			const session = sessionModel(own);
			const plan = await crew.plan({
				goal: "g",
				workflow: "two",
				retries: 0,
				...(session ? { defaultModel: session } : {}),
				...input,
			});
			const runId = crew.create(plan);
			const status = await crew.execute(runId);
			expect(
				status,
				crew
					.snapshot(runId)
					.tasks.map((t) => t.error ?? "")
					.join("\n"),
			).toBe("completed");
			const seen = (step: string) => {
				const requests = server.requests.filter((r) => r.messages.some((m) => m.text.includes(`STEP ${step}`)));
				expect(requests.length).toBeGreaterThan(0);
				return {
					models: [...new Set(requests.map((r) => r.model))],
					efforts: [...new Set(requests.map((r) => r.reasoning))],
				};
			};
			return { inherit: seen("inherit"), own: seen("own"), own_model: own, scripted };
		} finally {
			crew.close();
		}
	}

	test("an agent naming neither runs on the calling session's thinking level (and, under pi, its model); one naming both on its own", async () => {
		// A pi session's model is pi's `provider/id`: the scripted provider's second model.
		const seen = await run({ defaultThinking: "low" }, () => (cli.name === "pi" ? "scripted/scripted-2" : undefined));
		expect(seen.inherit.efforts).toEqual(["low"]);
		expect(seen.own.efforts).toEqual(["high"]);
		expect(seen.own.models).toEqual([seen.own_model.replace(/^scripted\//, "")]);
		if (cli.name === "pi") expect(seen.inherit.models).toEqual(["scripted-2"]);
	});

	test("the run's model and thinking level win over the agents' own and the session's", async () => {
		const runModel = cli.model ?? (cli.name === "pi" ? "scripted/scripted-2" : "gpt-5.4");
		const seen = await run({ model: runModel, thinking: cli.level, defaultThinking: "low" }, () => undefined);
		const id = runModel.replace(/^scripted\//, "");
		expect([seen.inherit.models, seen.own.models]).toEqual([[id], [id]]);
		expect([seen.inherit.efforts, seen.own.efforts]).toEqual([[cli.effort], [cli.effort]]);
	});
});
