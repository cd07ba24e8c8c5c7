// Inside a crew worker, a run starts only through the worker's runner: the client of its delegation socket.

import { createConnection } from "node:net";
import {
	DELEGATE_SOCKET_VARIABLE,
	type DelegationAnswer,
	type DelegationAsk,
	type DelegationReply,
} from "../../core/delegation.js";
import { CrewError, ErrorCode } from "../../core/errors.js";

/**
 * Where a process hands a run it would start: `undefined` outside crew's workers (it starts the run
 * itself); inside one, the socket its runner takes delegations on. A worker whose runner offers
 * none (its depth is the user's limit, or its attempt runs on a queue's worker) starts no run:
 * the error says so, and how to allow it.
 */
export function delegationRoute(env: NodeJS.ProcessEnv, action: string): string | undefined {
	if (env.CREW_RUN_ID === undefined) return undefined;
	const socket = env[DELEGATE_SOCKET_VARIABLE];
	if (socket) return socket;
	throw new CrewError(
		ErrorCode.Conflict,
		`${action} starts no run inside a crew worker (run ${env.CREW_RUN_ID}, depth ${env.CREW_DEPTH ?? "?"}) whose runner takes no delegation: runs inside runs go through the runner, as deep as your user config.json allows, e.g. {"nesting": {"maxDepth": 2}}`,
	);
}

/**
 * Hands `ask` to the runner listening on `socket` and waits for the delegated run's end: `started`
 * hears its id once recorded. A refusal becomes a CrewError in the runner's words; aborting `signal`
 * closes the connection, which stops the run.
 */
export function delegate(
	socket: string,
	ask: DelegationAsk,
	options: { readonly started?: (runId: string) => void; readonly signal?: AbortSignal } = {},
): Promise<DelegationAnswer> {
	return new Promise((resolve, reject) => {
		const connection = createConnection(socket, () => connection.write(`${JSON.stringify(ask)}\n`));
		let pending = "";
		let settled = false;
		const settle = (outcome: () => void) => {
			if (settled) return;
			settled = true;
			options.signal?.removeEventListener("abort", onAbort);
			connection.destroy();
			outcome();
		};
		const onAbort = () => settle(() => reject(options.signal?.reason));
		if (options.signal?.aborted) return onAbort();
		options.signal?.addEventListener("abort", onAbort, { once: true });
		connection.on("data", (chunk: Buffer) => {
			pending += chunk.toString("utf8");
			for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n")) {
				const reply = JSON.parse(pending.slice(0, end)) as DelegationReply;
				pending = pending.slice(end + 1);
				if ("started" in reply) options.started?.(reply.started.runId);
				else if ("answer" in reply) settle(() => resolve(reply.answer));
				else settle(() => reject(new CrewError(ErrorCode.Conflict, reply.refused)));
			}
		});
		connection.on("error", (error) =>
			settle(() =>
				reject(new CrewError(ErrorCode.Runtime, `cannot reach this worker's runner at ${socket}: ${error.message}`)),
			),
		);
		connection.on("close", () =>
			settle(() =>
				reject(new CrewError(ErrorCode.Runtime, "this worker's runner closed the delegation without an answer")),
			),
		);
	});
}
