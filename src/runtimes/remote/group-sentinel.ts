import { type ChildProcess, spawn } from "node:child_process";

/**
 * Watches over an agent's process group from a small process of its own: when the worker that
 * started the agent dies, even by SIGKILL, the sentinel's stdin closes and it ends the group
 * (SIGTERM, then SIGKILL after `graceMs`). A worker that ends normally stops its sentinel first.
 */
const WATCH = `
const [pgid, grace] = process.argv.slice(1).map(Number);
const end = (signal) => { try { process.kill(-pgid, signal); } catch { /* already gone */ } };
process.stdin.on("end", () => { end("SIGTERM"); setTimeout(() => { end("SIGKILL"); process.exit(0); }, grace); });
process.stdin.resume();
`;

export function watchGroup(pgid: number, graceMs: number): ChildProcess {
	const sentinel = spawn(process.execPath, ["-e", WATCH, String(pgid), String(graceMs)], {
		stdio: ["pipe", "ignore", "ignore"],
		detached: true,
	});
	sentinel.unref();
	return sentinel;
}
