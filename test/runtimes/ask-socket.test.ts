import { execFileSync } from "node:child_process";
import { createConnection } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect, test } from "vitest";
import { AskSocket } from "../../src/runtimes/agent/ask-socket.js";
import { ROOT } from "../helpers.js";

const SOCAT = execFileSync("sh", ["-c", "command -v socat"], { encoding: "utf8" }).trim();

/** The programs an agent CLI may start as crew's MCP server: socat, or crew's own bridge where socat is missing. */
const BRIDGES = {
	socat: (path: string) => ({ command: SOCAT, args: ["STDIO", `UNIX-CONNECT:${path}`] }),
	"crew ask-server": (path: string) => ({
		command: process.execPath,
		args: [join(ROOT, "bin", "crew.js"), "ask-server", path],
	}),
};

for (const [name, bridge] of Object.entries(BRIDGES)) {
	test(`through ${name}, an MCP client lists the tool ask and has each question answered as a person answers it`, async () => {
		const asked: string[] = [];
		const socket = await AskSocket.open(async (question) => {
			asked.push(question);
			if (question.includes("nobody")) throw new Error("the run was cancelled");
			return `answer to: ${question}`;
		});
		const client = new Client({ name: "test", version: "1" });
		try {
			await client.connect(new StdioClientTransport(bridge(socket.path)));
			const { tools } = await client.listTools();
			expect(tools.map((t) => [t.name, t.inputSchema.required])).toEqual([["ask", ["question"]]]);
			const answered = await client.callTool({ name: "ask", arguments: { question: "Postgres or SQLite?" } });
			expect(answered).toEqual({ content: [{ type: "text", text: "answer to: Postgres or SQLite?" }] });
			const unanswered = await client.callTool({ name: "ask", arguments: { question: "nobody there?" } });
			expect(unanswered).toMatchObject({
				content: [{ type: "text", text: "no answer: the run was cancelled" }],
				isError: true,
			});
			const blank = await client.callTool({ name: "ask", arguments: { question: "  " } });
			expect(blank.isError).toBe(true);
			expect(asked).toEqual(["Postgres or SQLite?", "nobody there?"]);
		} finally {
			await client.close();
			await socket.close();
		}
	});
}

test("a connection that sends a message longer than a question may be is dropped, and so are connections past four", async () => {
	const socket = await AskSocket.open(async () => "unused");
	const connect = () =>
		new Promise<{ closed: Promise<void>; write: (text: string) => void }>((resolve) => {
			const c = createConnection(socket.path, () =>
				resolve({ closed: new Promise((done) => c.on("close", () => done())), write: (t) => c.write(t) }),
			);
			c.on("error", () => {});
		});
	try {
		const long = await connect();
		long.write("x".repeat(64 * 1024));
		long.write("x".repeat(128 * 1024));
		await long.closed;
		const held = [await connect(), await connect(), await connect(), await connect()];
		const fifth = await connect();
		await fifth.closed;
		for (const c of held) c.write("\n");
	} finally {
		await socket.close();
	}
});
