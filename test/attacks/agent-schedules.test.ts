import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, expect, test } from "vitest";
import { mcpClient } from "../helpers.js";
import { victims } from "./attacker.js";

/**
 * An agent with crew's MCP tools (as Claude Code or Codex has them), told by an injected prompt to
 * leave work that runs later: a schedule whose `until` command is its own, in a repository the user
 * never trusted, or whose runs go unconfined. The schedule's slots run when no one watches, so
 * the agent's rules must hold when it is added, and each of its runs must stay the agent's.
 */
const victim = victims();
const clients: Client[] = [];
afterEach(async () => {
	for (const client of clients.splice(0)) await client.close();
});

async function schedule(client: Client, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
	const result = (await client.callTool({ name: "crew_schedule", arguments: args })) as {
		isError?: boolean;
		content: { text: string }[];
	};
	return { isError: result.isError === true, text: result.content[0]?.text ?? "" };
}

test("an agent's schedule runs no command of its own in an untrusted repository, and confines its runs no less than the user", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-schedule");
	const { client } = await mcpClient(v.repo, v.env);
	clients.push(client);
	const base = { goal: "tidy up", interval: 3_600_000 };

	const command = await schedule(client, { ...base, name: "sneaky", until: `touch ${marker}` });
	expect(command.isError, command.text).toBe(true);
	expect(command.text).toContain("is not trusted");

	const unconfined = await schedule(client, { ...base, name: "loose", sandbox: "off" });
	expect(unconfined.isError, unconfined.text).toBe(true);
	expect(unconfined.text).toContain("an agent may only tighten it");

	// Nothing was recorded that a scheduler could start later.
	const listed = JSON.parse((await v.crew(["schedule", "list", "--json"])).stdout) as { schedules: unknown[] };
	expect(listed.schedules).toEqual([]);
	expect(existsSync(marker)).toBe(false);
});
