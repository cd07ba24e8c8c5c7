import { expect, test } from "vitest";
import { readAdaptivePlan } from "../../src/core/adaptive-plan.js";

const limits = { roles: ["executor", "verifier"], maxPhaseTasks: 12, maxTasks: 48 };
const read = (text: string, existing: string[] = ["plan"]) => readAdaptivePlan(text, "plan", new Set(existing), limits);

test("a tasks plan in a json fence keeps its ids and dependencies; a task without any follows the planner", () => {
	const plan = {
		tasks: [
			{ id: "build", role: "executor", task: "build it" },
			{ id: "check", role: "verifier", title: "check", task: "run the tests", dependsOn: ["build"] },
		],
	};
	expect(read(`Plan:\n\`\`\`json\n${JSON.stringify(plan)}\n\`\`\`\n`)).toEqual({
		tasks: [
			{ id: "build", role: "executor", text: "build it", dependsOn: ["plan"] },
			{ id: "check", role: "verifier", text: "check\n\nrun the tests", dependsOn: ["build"] },
		],
	});
});

test("every problem of a plan is named, not just the first", () => {
	const plan = {
		tasks: [
			{ id: "a", role: "executor", task: "x", dependsOn: ["b"] },
			{ id: "b", role: "executor", task: "y", dependsOn: ["a"] },
		],
	};
	const cycle = read(`ADAPTIVE_PLAN_JSON_START\n${JSON.stringify(plan)}\nADAPTIVE_PLAN_JSON_END`);
	expect(cycle).toEqual({ errors: [expect.stringMatching(/cycle/)] });
	const many = read(
		`ADAPTIVE_PLAN_JSON_START\n${JSON.stringify({
			tasks: [
				{ id: "plan", role: "poet", task: "" },
				{ id: "../x", role: "executor", task: "z" },
			],
		})}\nADAPTIVE_PLAN_JSON_END`,
	);
	expect("errors" in many && many.errors).toEqual([
		"task id 'plan' is already taken",
		"task 'plan' has role 'poet'; the roles are executor, verifier",
		"task 'plan' says nothing to do",
		'task id "../x" is not a valid id',
	]);
	expect(read("no plan here")).toEqual({ errors: [expect.stringMatching(/^no plan found/)] });
	expect(read("ADAPTIVE_PLAN_JSON_START\n{nope\nADAPTIVE_PLAN_JSON_END")).toEqual({
		errors: [expect.stringMatching(/^the plan is not valid JSON/)],
	});
	expect(read('```json\n{"steps": []}\n```')).toEqual({ errors: ['the plan has neither "phases" nor "tasks"'] });
});
