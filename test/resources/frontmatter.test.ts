import { expect, test } from "vitest";
import { CREW_TOOLS } from "../../src/core/tools.js";
import { parseAgent } from "../../src/resources/agent-file.js";
import { parseTeam } from "../../src/resources/team-file.js";
import { parseWorkflow } from "../../src/resources/workflow-file.js";

const messages = (diagnostics: readonly { level: string; line?: number; message: string }[]) =>
	diagnostics.map((d) => `${d.level} ${d.line ?? "-"}: ${d.message}`);

test("a block scalar, a YAML list, a quoted string and comments read as YAML means them", () => {
	const { agent, diagnostics } = parseAgent(
		[
			"---",
			"# who this is",
			'name: "tester"',
			"description: 'Runs: the tests' # not part of it",
			"runtime: command",
			"command: |",
			"  npm test",
			"",
			"  echo done",
			"tools:",
			"  - read",
			"  - bash",
			"fallbackModels: [a/one, b/two]",
			"---",
			"Body.",
		].join("\n"),
		"tester.md",
	);
	expect(messages(diagnostics)).toEqual([]);
	expect(agent).toMatchObject({
		name: "tester",
		description: "Runs: the tests",
		runtime: "command",
		command: "npm test\n\necho done",
		tools: ["read", "bash"],
		fallbackModels: ["a/one", "b/two"],
		systemPrompt: "Body.",
	});
});

test("pi-crew's flat lines read as pi-crew means them, YAML or not", () => {
	const { agent, diagnostics } = parseAgent(
		"---\nname: flat\ndescription: Fix: the bug\nmodel: false\ntools: read, grep,bash\nfallbackModels: a,b\nmaxTokens: 64000\n---\n",
		"flat.md",
	);
	expect(messages(diagnostics)).toEqual([]);
	expect(agent).toMatchObject({
		description: "Fix: the bug",
		tools: ["read", "grep", "bash"],
		fallbackModels: ["a", "b"],
	});
	expect(agent.model).toBeUndefined();
	expect(agent.maxTokens).toBe(64000);
	expect(parseAgent("---\ntools: *\n---\n", "star.md").agent.tools).toEqual(["*"]);
	const indented = parseAgent("---\n  name: spaced\n  tools: read\n---\n", "spaced.md");
	expect([indented.agent.name, indented.agent.tools, messages(indented.diagnostics)]).toEqual(["spaced", ["read"], []]);
});

test("a tool crew gives agents may be listed in `tools:` without a warning, extensions or not", () => {
	const { agent, diagnostics } = parseAgent("---\nname: asker\ntools: read, ask\n---\n", "asker.md");
	expect(messages(diagnostics)).toEqual([]);
	expect(agent.tools).toEqual(["read", "ask"]);
	for (const tool of CREW_TOOLS) {
		expect(messages(parseAgent(`---\nname: a\ntools: ${tool}\n---\n`, "a.md").diagnostics)).toEqual([]);
	}
	const other = parseAgent("---\nname: other\ntools: read, scratchpad\n---\n", "other.md");
	expect(messages(other.diagnostics)).toEqual([
		"warning 3: tool 'scratchpad' is not one crew's runtimes have; it is left out",
	]);
});

test("a key one edit from a known key is an error naming it; other unknown keys are kept with a warning", () => {
	const { agent, diagnostics } = parseAgent("---\nname: a\nruntim: command\nspecRefs: SPEC.md\n---\n", "a.md");
	expect(messages(diagnostics)).toEqual([
		"error 3: unknown agent field 'runtim'; did you mean `runtime`?",
		"warning 4: unknown agent field 'specRefs' kept",
	]);
	expect(agent.runtime).toBe("pi");
	const team = parseTeam("---\ndefaultWorkflow: x\n---\n- doer: agnet=worker maxConcurency=2\n", "t.team.md");
	expect(messages(team.diagnostics)).toEqual([
		"error 4: role 'doer': unknown key 'agnet='; did you mean `agent=`?",
		"error 4: role 'doer': unknown key 'maxConcurency='; did you mean `maxConcurrency=`?",
	]);
});

test("a workflow step's keys read block scalars and lists, and every bad value is reported on its line", () => {
	const text = [
		"---",
		"name: w",
		"---",
		"## build",
		"verify: |",
		"  npm run build",
		"",
		"  npm test",
		"writes:",
		"  - src/",
		"  - ./test",
		"",
		"Build it.",
		"",
		"## ship",
		"dependOn: build",
		"timeout: 5 minutes",
		"retries: many",
		"approval: maybe",
		"",
		"Ship it.",
	].join("\n");
	const { workflow, diagnostics } = parseWorkflow(text, "w.workflow.md");
	expect(messages(diagnostics)).toEqual([
		"error 16: step 'ship': unknown key 'dependOn'; did you mean `dependsOn`?",
		"error 17: step 'ship': invalid timeout \"5 minutes\": expected 0 (no limit) or a duration from 1ms to 168h, such as 500ms, 30s, 5m or 1h",
		"error 18: step 'ship': retries 'many': expected an integer >= 0",
		"error 19: step 'ship': approval 'maybe': expected true or false",
	]);
	const [build, ship] = workflow.steps;
	expect(build).toMatchObject({
		id: "build",
		line: 4,
		verify: { kind: "command", command: "npm run build\n\nnpm test" },
		writes: ["src", "test"],
		text: "Build it.",
	});
	expect(ship).toMatchObject({ id: "ship", line: 15, dependsOn: [], text: "Ship it." });
});

test("a key given twice and a value YAML cannot read are errors on their lines", () => {
	const { diagnostics } = parseAgent("---\nname: a\ntools: [read,\n  bash\nname: b\n---\n", "a.md");
	expect(messages(diagnostics)).toEqual([
		"error 4: 'tools' does not read as YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
		"error 5: 'name' is given twice (lines 2 and 5)",
	]);
});

test("a one-line value that opens a list, a mapping or a quote YAML finds unclosed is an error, not taken as written", () => {
	const { agent, diagnostics } = parseAgent(
		'---\nname: a\nmodel: [unclosed\ndescription: "half\nthinking: {low\ntools: *\n---\n',
		"a.md",
	);
	expect(messages(diagnostics)).toEqual([
		"error 3: 'model' does not read as YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
		"error 4: 'description' does not read as YAML: Missing closing \"quote",
		"error 5: 'thinking' does not read as YAML: Flow map in block collection must be sufficiently indented and end with a }",
	]);
	expect(agent.model).toBeUndefined();
	expect(agent.tools).toEqual(["*"]);
});

test("a thinking level is one of pi's in an agent, on a role line and in a step; `false` inherits the caller's", () => {
	const good = parseAgent("---\nname: a\nthinking: high\n---\n", "a.md");
	expect([good.agent.thinking, messages(good.diagnostics)]).toEqual(["high", []]);
	expect(parseAgent("---\nname: a\nthinking: false\n---\n", "a.md").agent.thinking).toBeUndefined();
	const agent = parseAgent("---\nname: a\nthinking: deep\n---\n", "a.md");
	expect(messages(agent.diagnostics)).toEqual([
		'error 3: thinking "deep": expected one of off, minimal, low, medium, high, xhigh, max',
	]);
	const team = parseTeam("---\nname: t\n---\n- lead: agent=a thinking=lots\n- aide: agent=a thinking=low\n", "t.md");
	expect(messages(team.diagnostics)).toEqual([
		"error 4: role 'lead': thinking \"lots\": expected one of off, minimal, low, medium, high, xhigh, max",
	]);
	expect(team.team.roles.map((r) => r.thinking)).toEqual([undefined, "low"]);
	const workflow = parseWorkflow(
		"---\nname: w\n---\n## a\nrole: r\nthinking: some\n\nDo a.\n\n## b\nrole: r\nthinking: off\n\nDo b.\n",
		"w.md",
	);
	expect(messages(workflow.diagnostics)).toEqual([
		expect.stringMatching(/^error 6: .*thinking "some": expected one of off, minimal, low, medium, high, xhigh, max$/),
	]);
	expect(workflow.workflow.steps.map((s) => s.thinking)).toEqual([undefined, "off"]);
});

test("pi-crew's setup keys of an agent are read, and a bad value is an error naming it", () => {
	const { agent, diagnostics } = parseAgent(
		"---\nname: a\nsystemPromptMode: append\ninheritProjectContext: true\ninheritSkills: false\nskills: false\nextensions: ./x.ts, ./y.ts\nexcludeExtensions: y\nmaxTurns: 15\n---\nbody\n",
		"/a.md",
	);
	expect(diagnostics).toEqual([]);
	expect(agent.setup).toEqual({
		systemPromptMode: "append",
		inheritProjectContext: true,
		inheritSkills: false,
		skills: [],
		extensions: ["./x.ts", "./y.ts"],
		excludeExtensions: ["y"],
		maxTurns: 15,
	});
	const bad = parseAgent("---\nname: b\nsystemPromptMode: merge\nmaxTurns: 0\n---\n", "/b.md");
	expect(bad.diagnostics.map((d) => d.message)).toEqual([
		"systemPromptMode 'merge': expected one of replace, append",
		"maxTurns '0': expected an integer >= 1",
	]);
	expect(bad.agent.setup).toBeUndefined();
});
