// @module-tag agent-cli
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { Crew } from "../../src/engine/crew.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import { actThenReport } from "../../src/scripted-model/turns.js";
import { PI_1, TestRepo } from "../helpers.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

/**
 * A repository whose own `.pi/extensions` holds an extension that leaves a mark when pi loads
 * it, run by a pi agent under the given trust.
 */
async function projectExtensionRun(trusted: boolean, command?: readonly string[]) {
	const server = await ScriptedModelServer.start(
		actThenReport(() => ({ kind: "write", path: "a.txt", content: "a\n" }), "done"),
	);
	servers.push(server);
	const repo = new TestRepo({ trusted });
	// In the workspace, which a confined pi may write.
	const mark = join(repo.dir, "extension-loaded");
	repo.writeFile(
		".pi/extensions/mark.ts",
		`import { writeFileSync } from "node:fs";\nexport default function () { writeFileSync(${JSON.stringify(mark)}, "loaded"); }\n`,
	);
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	// The user's own pi trusts every project: crew's decision must still win.
	const settings = join(scripted.env.PI_CODING_AGENT_DIR as string, "settings.json");
	writeFileSync(
		settings,
		JSON.stringify({ ...JSON.parse(readFileSync(settings, "utf8")), defaultProjectTrust: "always" }),
	);
	repo.writeFile(
		".crew/agents/scribe.md",
		`---\nname: scribe\nruntime: pi\nmodel: ${scripted.model}\n---\nYou write.\n`,
	);
	repo.workflow("one", [{ id: "a", role: "scribe", text: "write a.txt" }]);
	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({
			graceMs: 500,
			pi: { env: { PATH: process.env.PATH, ...scripted.env }, ...(command ? { command } : {}) },
		}),
		trusted: () => trusted,
		pollMs: 20,
	});
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0 }));
		const status = await crew.execute(runId);
		const [task] = crew.snapshot(runId).tasks;
		return { status, error: task?.error ?? "", loaded: existsSync(mark), wrote: repo.exists("a.txt") };
	} finally {
		crew.close();
	}
}

describe("a repository's own pi extensions", () => {
	test("pi 1.x in an untrusted repository works without loading them, whatever the user's pi trusts", async () => {
		const run = await projectExtensionRun(false, PI_1);
		expect(run.status, run.error).toBe("completed");
		expect(run.wrote).toBe(true);
		expect(run.loaded).toBe(false);
	});

	test("pi 1.x in a trusted repository loads them", async () => {
		const run = await projectExtensionRun(true, PI_1);
		expect(run.status, run.error).toBe("completed");
		expect(run.loaded).toBe(true);
	});

	test("a pi that cannot leave them out refuses to run in an untrusted repository, saying why", async () => {
		const run = await projectExtensionRun(false);
		expect(run.status).toBe("failed");
		expect(run.loaded).toBe(false);
		expect(run.error).toMatch(/pi 0\.73\.1 .*\.pi\/extensions/);
		expect(run.error).toContain("crew trust");
	});
});

describe("which pi a worker runs", () => {
	test("the user's own pi on PATH, before the one crew bundles", async () => {
		const server = await ScriptedModelServer.start(
			actThenReport(() => ({ kind: "write", path: "a.txt", content: "a\n" }), "done"),
		);
		servers.push(server);
		const repo = new TestRepo();
		const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
		repo.writeFile(
			".crew/agents/scribe.md",
			`---\nname: scribe\nruntime: pi\nmodel: ${scripted.model}\n---\nYou write.\n`,
		);
		repo.workflow("one", [{ id: "a", role: "scribe", text: "write a.txt" }]);
		const bin = mkdtempSync(join(tmpdir(), "crew-bin-"));
		const used = join(bin, "used");
		writeFileSync(join(bin, "pi"), `#!/bin/sh\necho "$@" > ${used}\nexec ${PI_1.join(" ")} "$@"\n`, { mode: 0o755 });
		const run = async (path: string) => {
			const crew = new Crew({
				project: projectAt(repo.dir),
				runtimes: RuntimeRegistry.standard({ graceMs: 500, pi: { env: { PATH: path, ...scripted.env } } }),
				pollMs: 20,
			});
			try {
				// Unconfined: the program on PATH leaves its arguments beside itself, outside the workspace.
				const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0, sandbox: "off" }));
				return await crew.execute(runId);
			} finally {
				crew.close();
			}
		};
		expect(await run(process.env.PATH ?? "")).toBe("completed");
		expect(existsSync(used)).toBe(false);
		expect(await run(`${bin}:${process.env.PATH}`)).toBe("completed");
		expect(readFileSync(used, "utf8")).toContain("--mode rpc");
	});
});
