// The extension crew gives its pi workers that may delegate: the governed `agent` and `team` tools.

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { DELEGATE_SOCKET_VARIABLE } from "../../core/delegation.js";
import { delegationTools } from "./delegation-tools.js";

/**
 * Loaded by crew into a pi worker whose runner takes delegations (its socket is in the worker's
 * environment): `agent` and `team` hand work to that runner. Kept apart from crew's own extension
 * so that a worker loads only these few modules.
 */
export default function delegationExtension(pi: ExtensionAPI): void {
	const socket = process.env[DELEGATE_SOCKET_VARIABLE];
	if (socket) for (const tool of delegationTools(socket)) pi.registerTool(tool);
}
