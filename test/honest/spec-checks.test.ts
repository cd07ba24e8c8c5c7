import { expect, test } from "vitest";
import { read } from "../helpers.js";
import { developers, writeFiles } from "./developer.js";

/** A spec's check is the project's own test suite: honest work that passes it must pass the check, confined as it is. */
const developer = developers();

const SPEC = {
	id: "calc-spec",
	version: 1,
	requirements: [{ id: "R1", text: "add adds", priority: "must" }],
	acceptance: [
		{ id: "A1", requirementId: "R1", check: "npm test passes", command: "npm test --silent", idempotent: true },
	],
	source: { kind: "manual" },
};

test("a strict step's check that runs the project's npm test suite passes, offline and without credentials, once the agent fixed the code", async () => {
	const dev = developer();
	writeFiles(dev.repo, {
		"package.json": JSON.stringify({ name: "calc", version: "1.0.0", scripts: { test: "node --test" } }),
		"calc.js": "exports.add = (a, b) => a - b;\n",
		"calc.test.js":
			'const test = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("./calc.js");\ntest("add", () => assert.strictEqual(add(2, 3), 5));\n',
		"spec.json": JSON.stringify(SPEC),
		"fix.sh":
			"printf 'exports.add = (a, b) => a + b;\\n' > calc.js\nprintf 'fixed add\\n\\nSPEC-EVIDENCE:\\nA1: npm test passes\\n'\n",
		".crew/agents/fixer.md": '---\nname: fixer\nruntime: command\ncommand: "sh fix.sh"\n---\nFix it.\n',
		".crew/agents/passer.md": '---\nname: passer\nruntime: command\ncommand: "echo PASS"\n---\nCheck it.\n',
		".crew/teams/calc.team.md": "---\nname: calc\n---\n- worker: agent=fixer\n- verifier: agent=passer\n",
		".crew/workflows/calc-fix.workflow.md":
			"---\nname: calc-fix\n---\n## fix\nrole: worker\nspecRefs: calc-spec\nspecStrict: true\n\nFix add.\n\n## check\nrole: verifier\ndependsOn: fix\n\nCheck it.\n",
	});
	expect((await dev.crew(["trust"])).code).toBe(0);
	const imported = await dev.crew(["spec", "import", "spec.json"]);
	expect(imported.code, imported.stderr).toBe(0);
	const run = await dev.crew([
		"run",
		"fix add",
		"--team",
		"calc",
		"--workflow",
		"calc-fix",
		"--retries",
		"0",
		"--json",
	]);
	await dev.expectDone("fix add", run);
	const runId = JSON.parse(run.stdout.trim().split("\n").at(-1) as string).runId as string;
	const checked = read(dev.repo, (r) => r.events(runId).find((e) => e.type === "spec.checked"));
	expect(checked?.data.checks).toMatchObject([{ acceptanceId: "A1", outcome: "met", exitCode: 0 }]);
});
