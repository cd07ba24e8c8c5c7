import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, expect, test } from "vitest";
import { TrustStore } from "../../../src/config/trust.js";
import { CLI, cancelLiveRuns, TestRepo } from "../../helpers.js";

const clients: Client[] = [];
const dirs: string[] = [];
afterEach(async () => {
	for (const client of clients.splice(0)) await client.close();
	for (const dir of dirs.splice(0)) await cancelLiveRuns(dir);
});

/**
 * A repository whose one step prints the depth its worker was given, trusted in a user config
 * folder of its own that holds `config` (when given).
 */
function depthRepo(config?: object): { repo: TestRepo; env: NodeJS.ProcessEnv } {
	const home = mkdtempSync(join(tmpdir(), "crew-config-"));
	const env = { ...process.env, XDG_CONFIG_HOME: home };
	mkdirSync(join(home, "crew"), { recursive: true });
	if (config) writeFileSync(join(home, "crew", "config.json"), JSON.stringify(config));
	const repo = new TestRepo();
	new TrustStore(env).trust(repo.dir);
	repo.writeFile(".crew/agents/depth.md", '---\nruntime: command\ncommand: echo "depth=$CREW_DEPTH"\n---\n');
	repo.workflow("one", [{ id: "a", role: "depth" }]);
	return { repo, env };
}

/** A client of `crew mcp` started in `dir` as a crew worker would start it: with `worker` in its environment. */
async function connect(dir: string, env: NodeJS.ProcessEnv, worker: Record<string, string>): Promise<Client> {
	dirs.push(dir);
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: [CLI, "mcp"],
		cwd: dir,
		env: { ...(env as Record<string, string>), ...worker },
		stderr: "pipe",
	});
	const client = new Client({ name: "crew-test", version: "1.0.0" });
	await client.connect(transport);
	clients.push(client);
	return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
	const result = await client.callTool({ name, arguments: args });
	const text = (result.content as { text: string }[])[0]?.text ?? "";
	return { isError: result.isError === true, text, data: (result.structuredContent ?? {}) as Record<string, unknown> };
}

test("crew mcp inside a crew worker refuses to start runs, saying why and how to allow it", async () => {
	const { repo, env } = depthRepo();
	const client = await connect(repo.dir, env, { CREW_RUN_ID: "20260101-000000-abcdef" });
	const run = await call(client, "crew_run", { goal: "g", workflow: "one" });
	expect(run).toMatchObject({ isError: true });
	expect(run.text).toContain(
		'crew_run starts no run inside a crew worker (CREW_RUN_ID is set, depth 1): a run inside a run needs your user config.json to allow it, e.g. {"nesting": {"maxDepth": 2}}',
	);
	const agent = await call(client, "crew_agent", { task: "g", agent: "depth" });
	expect(agent.isError, agent.text).toBe(true);
	expect(agent.text).toContain("crew_agent starts no run inside a crew worker");
	for (const tool of ["crew_resume", "crew_approve", "crew_fork", "crew_replay"]) {
		const refused = await call(client, tool, { runId: "20260101-000000-abcdef" });
		expect(refused.isError, tool).toBe(true);
		expect(refused.text).toContain(`${tool} starts no run inside a crew worker`);
	}
	// Reading is still fine.
	expect((await call(client, "crew_list", { kind: "workflows" })).isError).toBe(false);
});

test("with nesting allowed in the user config a worker's run goes through its runner, one level deeper, and crew mcp refuses at the limit", async () => {
	const { repo, env } = depthRepo({ nesting: { maxDepth: 2 } });
	repo.writeFile(".crew/agents/boss.md", `---\nruntime: command\ncommand: node ${CLI} run g --workflow one\n---\n`);
	repo.workflow("lead", [{ id: "lead", role: "boss" }]);
	const outside = await connect(repo.dir, env, {});
	const started = await call(outside, "crew_run", { goal: "g", workflow: "lead" });
	expect(started.isError, started.text).toBe(false);
	const runId = started.data.runId as string;
	let children: { runId: string; taskId: string; status: string }[] = [];
	for (let tries = 0; tries < 300; tries++) {
		const status = await call(outside, "crew_status", { runId });
		const run = status.data.run as { status: string; children?: typeof children };
		children = run.children ?? [];
		if (run.status === "completed" || run.status === "failed") break;
		await sleep(100);
	}
	expect(children).toMatchObject([{ taskId: "lead", status: "completed" }]);
	const child = children[0]?.runId as string;
	expect((await call(outside, "crew_result", { runId: child, task: "a" })).data).toMatchObject({ result: "depth=2\n" });
	const lead = (await call(outside, "crew_result", { runId, task: "lead" })).data.result as string;
	expect(lead).toContain(`<delegated-result run="${child}" status="completed">\ndepth=2\n</delegated-result>`);

	const deepest = await connect(repo.dir, env, { CREW_RUN_ID: child, CREW_DEPTH: "2" });
	const refused = await call(deepest, "crew_run", { goal: "g", workflow: "one" });
	expect(refused.isError).toBe(true);
	expect(refused.text).toContain(
		"crew_run starts no run at depth 2: your user config.json allows runs nested 2 deep (nesting.maxDepth)",
	);
});

test("a project's config.json cannot allow nesting: crew mcp inside a worker still refuses", async () => {
	const { repo, env } = depthRepo();
	repo.writeFile(".crew/config.json", JSON.stringify({ nesting: { maxDepth: 5 } }));
	const client = await connect(repo.dir, env, { CREW_RUN_ID: "20260101-000000-abcdef", CREW_DEPTH: "1" });
	const run = await call(client, "crew_run", { goal: "g", workflow: "one" });
	expect(run.isError).toBe(true);
	expect(run.text).toContain("crew_run starts no run inside a crew worker (CREW_RUN_ID is set, depth 1)");
});
