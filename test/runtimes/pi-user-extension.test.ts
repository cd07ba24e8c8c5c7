// @module-tag agent-cli
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
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
 * An extension as pi 1.x documents them: it imports pi 1.x's own package and typebox, and
 * registers a `stamp` tool that writes its text into the file it is given.
 */
const STAMP_EXTENSION = `import { writeFileSync } from "node:fs";
import { type ExtensionAPI, isToolCallEventType } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

export default function (pi: ExtensionAPI) {
	pi.on("tool_call", async (event) => {
		if (isToolCallEventType("bash", event)) return undefined;
		return undefined;
	});
	pi.registerTool({
		name: "stamp",
		label: "Stamp",
		description: "Writes a stamp into a file",
		parameters: Type.Object({ file: Type.String(), text: Type.String() }),
		async execute(_id, params, _signal, _onUpdate, ctx) {
			writeFileSync(\`\${ctx.cwd}/\${params.file}\`, \`stamped: \${params.text}\\n\`);
			return { content: [{ type: "text", text: "stamped" }], details: {} };
		},
	});
}
`;

test("a user's extension written for pi 1.x works inside a crew worker run by the user's pi 1.x on PATH", async () => {
	const server = await ScriptedModelServer.start(
		actThenReport(() => ({ kind: "call", tool: "stamp", args: { file: "stamp.txt", text: "from the extension" } })),
	);
	servers.push(server);
	const repo = new TestRepo();
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	// Installed as the user installs extensions: in pi's agent folder, for every session.
	const extensions = join(scripted.env.PI_CODING_AGENT_DIR as string, "extensions");
	mkdirSync(extensions, { recursive: true });
	writeFileSync(join(extensions, "stamp.ts"), STAMP_EXTENSION);
	const bin = mkdtempSync(join(tmpdir(), "crew-bin-"));
	writeFileSync(join(bin, "pi"), `#!/bin/sh\nexec ${PI_1.map((p) => `"${p}"`).join(" ")} "$@"\n`, { mode: 0o755 });
	repo.writeFile(
		".crew/agents/stamper.md",
		`---\nname: stamper\nruntime: pi\nmodel: ${scripted.model}\n---\nYou stamp.\n`,
	);
	repo.workflow("one", [{ id: "a", role: "stamper", text: "stamp the file" }]);
	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({
			graceMs: 500,
			pi: { env: { PATH: `${bin}:${process.env.PATH}`, ...scripted.env } },
		}),
		pollMs: 20,
	});
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0 }));
		const status = await crew.execute(runId);
		expect(status, crew.snapshot(runId).tasks[0]?.error ?? "").toBe("completed");
		expect(server.requests[0]?.tools).toContain("stamp");
		expect(readFileSync(join(repo.dir, "stamp.txt"), "utf8")).toBe("stamped: from the extension\n");
		const events = crew.events(runId).filter((e) => e.type === "worker.tool-end");
		expect(JSON.stringify(events)).toContain('"stamp"');
	} finally {
		crew.close();
	}
});

test("a custom provider of the user's pi 1.x whose key and header name variables gets them in a crew worker", async () => {
	const server = await ScriptedModelServer.start(() => ({ kind: "text", text: "done" }));
	servers.push(server);
	const repo = new TestRepo();
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	const models = join(scripted.env.PI_CODING_AGENT_DIR as string, "models.json");
	const config = JSON.parse(readFileSync(models, "utf8"));
	// biome-ignore lint/suspicious/noTemplateCurlyInString: pi's own interpolation, as a user writes it
	config.providers.scripted.apiKey = "${SCRIPTED_TOKEN}";
	config.providers.scripted.headers = { "x-team": "$SCRIPTED_TEAM" };
	writeFileSync(models, JSON.stringify(config));
	repo.writeFile(".crew/agents/asker.md", `---\nname: asker\nruntime: pi\nmodel: ${scripted.model}\n---\nYou ask.\n`);
	repo.workflow("one", [{ id: "a", role: "asker", text: "answer" }]);
	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({
			graceMs: 500,
			pi: {
				command: PI_1,
				env: { PATH: process.env.PATH, ...scripted.env, SCRIPTED_TOKEN: "token-7", SCRIPTED_TEAM: "team-3" },
			},
		}),
		pollMs: 20,
	});
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0 }));
		expect(await crew.execute(runId), crew.snapshot(runId).tasks[0]?.error ?? "").toBe("completed");
		expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer token-7"]);
		expect(server.requests.map((r) => r.headers["x-team"])).toEqual(["team-3"]);
	} finally {
		crew.close();
	}
});

/** A permission gate as pi's users write them: it asks the person before each shell command. */
const GATE_EXTENSION = `export default function (pi) {
	pi.on("tool_call", async (event, ctx) => {
		if (event.toolName !== "bash" || !ctx.hasUI) return undefined;
		const ok = await ctx.ui.confirm("Run this command?", JSON.stringify(event.input));
		return ok ? undefined : { block: true, reason: "the person declined" };
	});
}
`;

test("a user's extension that opens a dialog in a crew worker is answered at once, as no person is there, and the task goes on", async () => {
	const server = await ScriptedModelServer.start(
		actThenReport(() => ({ kind: "shell", command: "echo ran > ran.txt" }), "reported"),
	);
	servers.push(server);
	const repo = new TestRepo();
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	const extensions = join(scripted.env.PI_CODING_AGENT_DIR as string, "extensions");
	mkdirSync(extensions, { recursive: true });
	writeFileSync(join(extensions, "gate.js"), GATE_EXTENSION);
	repo.writeFile(".crew/agents/runner.md", `---\nname: runner\nruntime: pi\nmodel: ${scripted.model}\n---\nYou run.\n`);
	repo.workflow("one", [{ id: "a", role: "runner", text: "run it", extra: { stallTimeout: "15s" } }]);
	const crew = new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({
			graceMs: 500,
			pi: { command: PI_1, env: { PATH: process.env.PATH, ...scripted.env } },
		}),
		pollMs: 20,
	});
	try {
		const runId = crew.create(await crew.plan({ goal: "g", workflow: "one", retries: 0 }));
		const status = await crew.execute(runId);
		expect(status, crew.snapshot(runId).tasks[0]?.error ?? "").toBe("completed");
		const ended = crew.events(runId).find((e) => e.type === "worker.tool-end");
		expect(ended?.data).toMatchObject({ name: "bash", isError: true });
		const transcript = readFileSync(
			join(repo.dir, ".crew", "runs", runId, "tasks", "a", "attempt-1.transcript.jsonl"),
			"utf8",
		);
		expect(transcript).toContain('"type":"crew.dialog"');
		expect(transcript).toContain("Run this command?");
	} finally {
		crew.close();
	}
});
