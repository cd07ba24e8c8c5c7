// `crew ask-server`: the MCP server whose `ask` tool takes an agent's question to a person and back.

import { createConnection } from "node:net";
import { createInterface } from "node:readline";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ASK_DESCRIPTION, ASK_TOOL } from "../../core/asked.js";
import { errorMessage } from "../../core/errors.js";
import { serveOverStdio } from "./stdio.js";

/** Time between progress notifications while a question waits, in ms. */
const PROGRESS_EVERY_MS = 10_000;

/**
 * `crew ask-server <socket>`: the MCP server an agent CLI (Claude Code, Codex) starts for one
 * attempt, on stdin/stdout, with one tool, `ask`. Each call takes the question to the attempt's
 * runtime over the unix socket `socket` (see `AskSocket`) and waits for a person's answer, which
 * is the call's result.
 */
export async function askServerCommand(socket: string, version: string): Promise<number> {
	const server = new McpServer({ name: "crew", version });
	server.registerTool(
		ASK_TOOL,
		{ description: ASK_DESCRIPTION, inputSchema: { question: z.string().min(1).describe("the question, whole") } },
		async ({ question }, extra) => {
			// A client whose timeout restarts on progress hears, every 10 s, that the question still waits.
			const token = extra._meta?.progressToken;
			const since = Date.now();
			const beat =
				token === undefined
					? undefined
					: setInterval(() => {
							const progress = Math.floor((Date.now() - since) / 1000);
							const params = { progressToken: token, progress, message: "waiting for a person's answer" };
							extra.sendNotification({ method: "notifications/progress", params }).catch(() => {});
						}, PROGRESS_EVERY_MS);
			try {
				return { content: [{ type: "text", text: await askOver(socket, question) }] };
			} catch (error) {
				return { content: [{ type: "text", text: `no answer: ${errorMessage(error)}` }], isError: true };
			} finally {
				clearInterval(beat);
			}
		},
	);
	await serveOverStdio(server);
	return 0;
}

/** Puts `question` to the attempt's runtime and resolves with the answer it gives back. */
function askOver(path: string, question: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const socket = createConnection(path, () => socket.write(`${JSON.stringify({ question })}\n`));
		socket.on("error", reject);
		const lines = createInterface({ input: socket });
		lines.once("line", (line) => {
			socket.destroy();
			const said = JSON.parse(line) as { answer?: string; error?: string };
			if (typeof said.answer === "string") resolve(said.answer);
			else reject(new Error(said.error ?? "the attempt gave no answer"));
		});
		lines.once("close", () => reject(new Error("the attempt closed the question unanswered")));
	});
}
