// `crew ask-server <socket>`: an MCP server over stdio joined to crew's ask socket, for hosts without socat.

import { createConnection } from "node:net";

/**
 * Joins stdin and stdout to the unix socket at `path`, on which the attempt's runtime serves the
 * tool `ask` over MCP (see `AskSocket`), until either side ends; 1 when the socket cannot be reached.
 */
export function askBridge(path: string): Promise<number> {
	return new Promise((resolve) => {
		const socket = createConnection(path, () => {
			process.stdin.pipe(socket);
			socket.pipe(process.stdout);
		});
		socket.on("error", (error) => {
			process.stderr.write(`crew ask-server: ${error.message}\n`);
			resolve(1);
		});
		socket.on("close", () => resolve(0));
	});
}
