import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect } from "vitest";
import { cancelLiveRuns, mcpClient } from "../../helpers.js";

/** Clients of `crew mcp` started by tests, closed (and their runs cancelled) by `closeClients`. */
export class McpClients {
	readonly #clients: Client[] = [];
	readonly #dirs: string[] = [];

	/** A client of a `crew mcp` started in `dir`. */
	async connect(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<Client> {
		this.#dirs.push(dir);
		const { client } = await mcpClient(dir, env);
		this.#clients.push(client);
		return client;
	}

	async close(): Promise<void> {
		for (const client of this.#clients.splice(0)) await client.close();
		for (const dir of this.#dirs.splice(0)) await cancelLiveRuns(dir);
	}
}

export interface Answer {
	isError: boolean;
	text: string;
	data: Record<string, unknown>;
}

/** Calls a tool; its text and its structured content must be the same answer. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
	const result = await client.callTool({ name, arguments: args });
	const content = result.content as { type: string; text: string }[];
	const text = content[0]?.text ?? "";
	const data = (result.structuredContent ?? {}) as Record<string, unknown>;
	if (!result.isError) expect(JSON.parse(text)).toEqual(data);
	return { isError: result.isError === true, text, data };
}

/** Calls a tool that must answer without an error. */
export async function ok(
	client: Client,
	name: string,
	args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
	const answer = await call(client, name, args);
	expect(answer.isError, answer.text).toBe(false);
	return answer.data;
}

const ENDED = ["completed", "failed", "cancelled", "interrupted"];

/** The run's `crew_status` once it has ended. */
export async function untilEnded(
	client: Client,
	runId: string,
): Promise<{ run: { status: string }; tasks: { id: string; status: string }[] }> {
	for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
		const { data } = await call(client, "crew_status", { runId });
		const status = data as { run: { status: string }; tasks: { id: string; status: string }[] };
		if (ENDED.includes(status.run.status)) return status;
	}
	throw new Error(`run ${runId} did not end`);
}
