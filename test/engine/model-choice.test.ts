import { describe, expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import type { PlanInput } from "../../src/engine/planning/plan-input.js";
import { RunReader } from "../../src/engine/views/reader.js";
import { TestRepo } from "../helpers.js";
import { testCrew } from "./engine-helpers.js";

/**
 * A repository whose workflow has one step per way an agent's model and thinking level are set:
 * by the step, by the team's role, by the agent itself, and by nothing (a `model: false` agent).
 */
function repository(runtime = "pi"): TestRepo {
	const repo = new TestRepo();
	const agent = (name: string, fields: string) =>
		repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\nruntime: ${runtime}\n${fields}---\nYou ${name}.\n`);
	agent("plain", "model: false\n");
	agent("own", "model: own/model\nthinking: high\n");
	repo.writeFile(
		".crew/teams/t.md",
		"---\nname: t\n---\n- by-step: agent=own\n- by-role: agent=own model=role/model thinking=low\n- by-agent: agent=own\n- by-nothing: agent=plain\n",
	);
	repo.workflow("w", [
		{ id: "step", role: "by-step", extra: { model: "step/model", thinking: "minimal" } },
		{ id: "role", role: "by-role" },
		{ id: "agent", role: "by-agent" },
		{ id: "nothing", role: "by-nothing" },
	]);
	return repo;
}

/** Each task's model and thinking level as planned. */
async function chosen(repo: TestRepo, input: Partial<PlanInput>): Promise<Record<string, string>> {
	const crew = testCrew(repo);
	try {
		const plan = await crew.plan({ goal: "g", workflow: "w", team: "t", ...input });
		return Object.fromEntries(plan.tasks.map((t) => [t.id, `${t.agent.model ?? "-"} ${t.agent.thinking ?? "-"}`]));
	} finally {
		crew.close();
	}
}

describe("an agent's model and thinking level", () => {
	test("come from the step, else the team's role, else the agent, else the calling session, else the CLI's default", async () => {
		const repo = repository();
		expect(await chosen(repo, {})).toEqual({
			step: "step/model minimal",
			role: "role/model low",
			agent: "own/model high",
			nothing: "- -",
		});
		expect(await chosen(repo, { defaultModel: "session/model", defaultThinking: "medium" })).toEqual({
			step: "step/model minimal",
			role: "role/model low",
			agent: "own/model high",
			nothing: "session/model medium",
		});
	});

	test("the run's model and thinking level win over all of them", async () => {
		const repo = repository();
		const all = await chosen(repo, {
			model: "run/model",
			thinking: "xhigh",
			defaultModel: "session/model",
			defaultThinking: "medium",
		});
		expect(new Set(Object.values(all))).toEqual(new Set(["run/model xhigh"]));
	});

	test("the session's model goes to pi agents only; its thinking level to every agent", async () => {
		for (const runtime of ["claude", "codex"]) {
			const nothing = (await chosen(repository(runtime), { defaultModel: "session/model", defaultThinking: "low" }))
				.nothing;
			expect(nothing).toBe("- low");
		}
	});

	test("a level that is not one is refused, naming it and the levels there are", async () => {
		const repo = repository();
		const crew = testCrew(repo);
		try {
			for (const input of [{ thinking: "hard" }, { defaultThinking: "hard" }]) {
				await expect(crew.plan({ goal: "g", workflow: "w", team: "t", ...(input as object) })).rejects.toThrow(
					/thinking "hard": expected one of off, minimal, low, medium, high, xhigh, max/,
				);
			}
			await expect(crew.plan({ goal: "g", workflow: "w", team: "t", defaultModel: " " })).rejects.toThrow(
				/invalid default model " ": expected a model name/,
			);
		} finally {
			crew.close();
		}
	});

	test("a level an agent CLI has no equivalent of is one warning per runtime, naming it", async () => {
		const crew = testCrew(repository("claude"));
		try {
			const plan = await crew.plan({ goal: "g", workflow: "w", team: "t", thinking: "minimal" });
			const warnings = plan.diagnostics.filter((d) => d.level === "warning").map((d) => d.message);
			expect(warnings).toEqual([
				"runtime claude has no thinking level minimal: agents own, plain run at claude's default",
			]);
		} finally {
			crew.close();
		}
		const codex = testCrew(repository("codex"));
		try {
			const plan = await codex.plan({ goal: "g", workflow: "w", team: "t", defaultThinking: "max" });
			expect(plan.diagnostics.map((d) => d.message)).toEqual([
				"runtime codex has no thinking level max: agent plain runs at codex's default",
			]);
		} finally {
			codex.close();
		}
	});
});

test("a workflow script's call that names a model runs on it, unless the run names one of its own", async () => {
	const repo = repository();
	repo.writeFile(
		".crew/workflows/calls.workflow.ts",
		`import type { WorkflowContext } from "crew/script";\nexport default async (ctx: WorkflowContext) => {\n\tawait ctx.agent({ role: "plain", prompt: "p", model: "call/model" });\n};\n`,
	);
	const modelOf = async (input: Partial<PlanInput>) => {
		const crew = testCrew(repo);
		try {
			const runId = crew.create(await crew.plan({ goal: "g", workflow: "calls", runtime: "dry-run", ...input }));
			expect(await crew.execute(runId)).toBe("completed");
			const reader = new RunReader(projectAt(repo.dir));
			try {
				return reader.view(runId).tasks.map((t) => t.model);
			} finally {
				reader.close();
			}
		} finally {
			crew.close();
		}
	};
	expect(await modelOf({})).toEqual(["call/model"]);
	expect(await modelOf({ model: "run/model" })).toEqual(["run/model"]);
});
