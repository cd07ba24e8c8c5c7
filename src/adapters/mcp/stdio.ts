// An MCP server served on stdin/stdout until the client closes stdin.

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/** Serves `server` on stdin/stdout until the client closes stdin; stdout carries the protocol alone. */
export async function serveOverStdio(server: McpServer): Promise<void> {
	const transport = new StdioServerTransport();
	const closed = new Promise<void>((resolve) => {
		transport.onclose = () => resolve();
		process.stdin.once("end", () => resolve());
	});
	await server.connect(transport);
	await closed;
	await server.close();
}
