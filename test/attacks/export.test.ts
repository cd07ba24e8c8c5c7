import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, expect, test } from "vitest";
import { mcpClient } from "../helpers.js";
import { victims } from "./attacker.js";

/**
 * An agent with crew's MCP tools (as Claude Code or Codex has them) that names, for crew_export, a
 * path inside the repository that a link leads out of: the user's files must stay as they were.
 */
const victim = victims();
const clients: Client[] = [];
afterEach(async () => {
	for (const client of clients.splice(0)) await client.close();
});

async function mcp(v: ReturnType<typeof victim>): Promise<Client> {
	const { client } = await mcpClient(v.repo, v.env);
	clients.push(client);
	return client;
}

test("crew_export through a linked folder or onto a linked file writes nothing outside the repository", async () => {
	const v = victim();
	writeFileSync(join(v.home, ".bashrc"), "the user's own\n");
	expect((await v.crew(["run", "hello", "--runtime", "dry-run"])).code).toBe(0);
	const [run] = JSON.parse((await v.crew(["runs", "--json"])).stdout) as { id: string }[];
	symlinkSync(v.home, join(v.repo, "linkdir"));
	symlinkSync(join(v.home, ".bashrc"), join(v.repo, "bundle.json"));
	const client = await mcp(v);
	for (const file of ["linkdir/.bashrc", "bundle.json", "linkdir/new/x.json"]) {
		const result = (await client.callTool({ name: "crew_export", arguments: { runId: run?.id, file } })) as {
			isError?: boolean;
			content: { text: string }[];
		};
		expect(result.isError, file).toBe(true);
		expect(result.content[0]?.text, file).toMatch(/link|outside|inside the repository/);
	}
	expect(readFileSync(join(v.home, ".bashrc"), "utf8")).toBe("the user's own\n");
	expect(() => readFileSync(join(v.home, "new", "x.json"))).toThrow();
});
