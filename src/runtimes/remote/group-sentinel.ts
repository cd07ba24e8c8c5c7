// A shell sentinel that ends an agent's process group when the remote worker that started it dies.

import { type ChildProcess, spawn } from "node:child_process";

/**
 * Ends the group when stdin reaches its end, which it does when the worker holding the other end
 * dies, however it dies. A shell starts in about a millisecond, where a Node process would cost a
 * busy worker a core for a tenth of a second per attempt.
 */
const WATCH =
	'while read -r _; do :; done; kill -s TERM -- "-$1" 2>/dev/null; sleep "$2"; kill -s KILL -- "-$1" 2>/dev/null';

/**
 * Watches over an agent's process group from a small process of its own: when the worker that
 * started the agent dies, even by SIGKILL, the sentinel ends the group (SIGTERM, then SIGKILL
 * after `graceMs`). A worker that ends an attempt normally kills its sentinel first.
 */
export function watchGroup(pgid: number, graceMs: number): ChildProcess {
	const grace = (Math.max(graceMs, 0) / 1000).toFixed(3);
	const sentinel = spawn("/bin/sh", ["-c", WATCH, "crew-sentinel", String(pgid), grace], {
		stdio: ["pipe", "ignore", "ignore"],
		detached: true,
	});
	sentinel.unref();
	return sentinel;
}
