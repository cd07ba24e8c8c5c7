// @module-tag agent-cli
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { Crew } from "../../src/engine/crew.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import type { ModelRequest } from "../../src/scripted-model/turns.js";
import { cliHome, PI_1, TestRepo } from "../helpers.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "pi-crew", "keys");
const CONTEXT = "PROJECT-CONTEXT-LINE from AGENTS.md";

function textOf(request: ModelRequest): string {
	return request.messages.map((m) => m.text).join("\n");
}

/** A skill folder with SKILL.md, whose description names it. */
function skill(dir: string, name: string): void {
	mkdirSync(join(dir, name), { recursive: true });
	writeFileSync(join(dir, name, "SKILL.md"), `---\nname: ${name}\ndescription: SKILL-${name} helps\n---\nDo it.\n`);
}

const TOOL = (name: string) =>
	`export default function (pi) { pi.registerTool({ name: "${name}", label: "${name}", description: "probe", parameters: { type: "object", properties: {} }, async execute() { return { content: [{ type: "text", text: "ok" }], details: {} }; } }); }\n`;

test("pi-crew's agent, team and workflow keys, from its documentation, each do what it documents on real pi", async () => {
	const server = await ScriptedModelServer.start((r) =>
		textOf(r).includes("CHECKER-BODY")
			? { kind: "text", text: "The audit holds.\nPASS" }
			: { kind: "text", text: "SURVEY-RESULT: two findings" },
	);
	servers.push(server);
	const repo = new TestRepo();
	const home = cliHome("pi");
	const scripted = scriptedCliSetup("pi", server.url, home);
	for (const kind of ["agents", "teams", "workflows"]) {
		for (const file of readdirSync(join(FIXTURES, kind))) {
			const text = readFileSync(join(FIXTURES, kind, file), "utf8")
				.replaceAll("FALLBACK", scripted.fallbackModel)
				.replaceAll("MODEL", scripted.model);
			repo.writeFile(`.crew/${kind}/${file}`, text);
		}
	}
	repo.writeFile("AGENTS.md", `${CONTEXT}\n`);
	repo.writeFile("ext/kept.js", TOOL("kept_tool"));
	repo.writeFile("ext/dropped.js", TOOL("dropped_tool"));
	for (const name of ["own", "ofrole", "ofstep"]) skill(join(repo.dir, ".crew", "skills"), name);
	skill(join(home, "pi-agent", "skills"), "found");
	mkdirSync(join(home, "pi-agent", "extensions"), { recursive: true });
	writeFileSync(join(home, "pi-agent", "extensions", "own.js"), TOOL("own_tool"));

	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({
			graceMs: 500,
			pi: { env: { PATH: process.env.PATH, ...scripted.env }, command: PI_1 },
		}),
		pollMs: 20,
	});
	try {
		// The team's defaultWorkflow is the workflow; no key warns on pi.
		const plan = await crew.plan({ goal: "the parser", team: "keyed" });
		expect(plan.workflow).toBe("keyed");
		expect(plan.diagnostics).toEqual([]);
		expect(plan.options.concurrency).toBe(2);
		const runId = crew.create(plan);
		expect(await crew.execute(runId)).toBe("completed");
		const tasks = crew.snapshot(runId).tasks;
		expect(tasks.map((t) => [t.id, t.status])).toEqual([
			["survey", "completed"],
			["second", "completed"],
			["check", "completed"],
		]);

		const firstOf = (marker: string) =>
			server.requests.find((r) => textOf(r).includes(marker) && r.tools.length > 0) as ModelRequest;
		const survey = firstOf("Audit the first area");
		const second = firstOf("Audit the second area");
		const check = firstOf("Check the audit");
		// Agent keys: the role's thinking over the agent's; the body replaces pi's prompt; no context file.
		for (const request of [survey, second]) {
			expect(request.model).toBe("scripted-1");
			expect(request.reasoning).toBe("medium");
			expect(textOf(request)).toContain("AUDITOR-BODY");
			expect(textOf(request)).not.toContain("You are a coding assistant");
			expect(textOf(request)).not.toContain(CONTEXT);
			// tools, of which the extensions give one: those named, less excludeExtensions, instead of pi's own finds.
			expect([...request.tools].sort()).toEqual(["ask", "bash", "find", "grep", "kept_tool", "ls", "read"]);
			expect(request.tools).toContain("kept_tool");
			expect(request.tools).not.toContain("dropped_tool");
			expect(request.tools).not.toContain("own_tool");
			expect(textOf(request)).not.toContain("SKILL-found helps");
		}
		// Skills: the agent's, the role's and the step's; a step's `skills: false` leaves none.
		for (const name of ["own", "ofrole", "ofstep"]) expect(textOf(survey)).toContain(`SKILL-${name} helps`);
		for (const name of ["own", "ofrole", "ofstep"]) expect(textOf(second)).not.toContain(`SKILL-${name} helps`);
		// The checker appends to pi's prompt, reads the context file, finds pi's own skills but gets none of its own.
		expect(check.reasoning).toBe("low");
		expect(check.model).toBe("scripted-1");
		expect(textOf(check)).toContain("CHECKER-BODY");
		expect(textOf(check)).toContain("You are a coding assistant");
		expect(textOf(check)).toContain(CONTEXT);
		expect(textOf(check)).not.toContain("SKILL-own helps");
		// output: and reads: the survey's answer is the shared file, in the check's prompt as data.
		const dir = join(repo.dir, ".crew", "runs", runId);
		expect(readFileSync(join(dir, "shared", "survey.md"), "utf8")).toBe("SURVEY-RESULT: two findings");
		expect(textOf(check)).toContain('<file name="shared/survey.md" chars="27">\nSURVEY-RESULT: two findings\n</file>');
		// The role's maxConcurrency=1: the two audits never ran at once.
		const [a, b] = [tasks[0], tasks[1]].map((t) => ({
			start: Date.parse(t?.startedAt ?? ""),
			end: Date.parse(t?.finishedAt ?? ""),
		}));
		expect((a?.end ?? 0) <= (b?.start ?? 0) || (b?.end ?? 0) <= (a?.start ?? 0)).toBe(true);
	} finally {
		crew.close();
	}
}, 180_000);
