import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, expect, test } from "vitest";
import { cancelLiveRuns, mcpClient, read } from "../helpers.js";
import { victims } from "./attacker.js";

/**
 * An agent with crew's MCP tools, told by an injected prompt to run again what the user ran
 * unconfined: a fork or a replay of the user's `--sandbox off` run, or of a run of the repository's
 * own commands once the user no longer trusts it. A run made again is made now, by whoever asks:
 * it must be confined and trusted as the agent's own run would be, never as the record was.
 */
const victim = victims();
const clients: { client: Client; repo: string }[] = [];
afterEach(async () => {
	for (const { client, repo } of clients.splice(0)) {
		await client.close();
		await cancelLiveRuns(repo);
	}
});

type Answer = { isError: boolean; text: string; data: Record<string, unknown> };
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
	const result = (await client.callTool({ name, arguments: args })) as {
		isError?: boolean;
		content: { text: string }[];
	};
	const text = result.content[0]?.text ?? "";
	return { isError: result.isError === true, text, data: result.isError ? {} : JSON.parse(text) };
}

async function ended(client: Client, runId: string): Promise<string> {
	for (;;) {
		const { data } = await call(client, "crew_status", { runId });
		const status = (data.run as { status: string }).status;
		if (!["queued", "running", "waiting"].includes(status)) return status;
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

test("an agent's fork or replay of the user's unconfined run is confined as the user's settings say, and none runs in a repository the user stopped trusting", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-fork");
	// The repository's own agent writes beside the repository: only the user's --sandbox off lets it.
	mkdirSync(join(v.repo, ".crew", "agents"), { recursive: true });
	mkdirSync(join(v.repo, ".crew", "workflows"), { recursive: true });
	writeFileSync(
		join(v.repo, ".crew", "agents", "maker.md"),
		`---\nname: maker\nruntime: command\ncommand: touch ${marker}\n---\n`,
	);
	writeFileSync(
		join(v.repo, ".crew", "workflows", "make.workflow.md"),
		"---\nname: make\n---\n## make\nrole: maker\n\nMake it for {goal}\n",
	);
	expect((await v.crew(["trust"])).code).toBe(0);
	const own = await v.crew(["run", "make it", "--workflow", "make", "--sandbox", "off", "--json"]);
	expect(own.code, own.stderr).toBe(0);
	const runId = (JSON.parse(own.stdout.trim().split("\n").at(-1) as string) as { runId: string }).runId;
	expect(existsSync(marker)).toBe(true);
	rmSync(marker);

	const { client } = await mcpClient(v.repo, v.env);
	clients.push({ client, repo: v.repo });
	const forked = await call(client, "crew_fork", { runId, from: ["make"] });
	expect(forked.isError, forked.text).toBe(false);
	const replayed = await call(client, "crew_replay", { runId });
	expect(replayed.isError, replayed.text).toBe(false);
	const made = [String(forked.data.runId), String(replayed.data.runId)];
	for (const id of made) await ended(client, id);
	expect(existsSync(marker)).toBe(false);
	// The fork's task ran, confined at the user's level, and could not write there; the replay
	// answered from the record, starting nothing.
	const [fork, replay] = read(v.repo, (reader) => made.map((id) => reader.status(id).tasks[0]));
	expect(fork).toMatchObject({ status: "failed", attempts: 1, sandbox: { level: "workspace" } });
	expect(fork?.error).toContain(marker);
	expect(replay).toMatchObject({ status: "completed", sandbox: { level: "workspace" } });

	expect((await v.crew(["trust", "--revoke"])).code).toBe(0);
	const runs = () => read(v.repo, (reader) => reader.repo.runs().length);
	const before = runs();
	for (const [tool, args] of [
		["crew_fork", { runId, from: ["make"] }],
		["crew_replay", { runId, liveOnDivergence: true }],
	] as const) {
		const refused = await call(client, tool, args);
		expect(refused.isError, `${tool}: ${refused.text}`).toBe(true);
		expect(refused.text).toContain("is not trusted");
	}
	expect(runs()).toBe(before);
	expect(existsSync(marker)).toBe(false);
});
