// `crew mcp`: crew served over MCP on stdin/stdout for the repository it starts in.

import { findProject } from "../../config/project.js";
import { checkStoreBinding } from "../../store/database.js";
import { TeamActions } from "../shared/team-actions.js";
import { createMcpServer } from "./mcp-server.js";
import { serveOverStdio } from "./stdio.js";

/**
 * Serves crew over MCP on stdin/stdout for the repository it starts in, until the client closes
 * stdin. stdout carries the protocol alone: nothing else may print there. A Node that cannot load
 * crew's store fails at once, before the handshake, so a client can start crew on another.
 */
export async function mcpCommand(version: string): Promise<number> {
	checkStoreBinding();
	const server = createMcpServer(new TeamActions(findProject(process.cwd())), version);
	await serveOverStdio(server);
	return 0;
}
