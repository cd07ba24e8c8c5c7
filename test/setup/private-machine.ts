import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, inject } from "vitest";

/**
 * Vitest setup file, run before each test file: the file gets a machine of its own, so files can
 * run side by side and nothing else on the machine reaches them. Its temporary folder, home, user
 * config (trust, personal agents), pi agent folder, tmux server and queue key are private to it; the real
 * user's folders, `/tmp` itself and any tmux server already running are never used. The file
 * `test-file` in its folder names the test file, for whoever looks at what a test left. No process
 * the file started outlives it (see `endLeftovers`).
 */
const own = mkdtempSync(`${inject("privateRoot")}/`);
writeFileSync(join(own, "test-file"), `${expect.getState().testPath ?? ""}\n`);
const folders = { TMPDIR: "tmp", HOME: "home", XDG_CONFIG_HOME: "config", TMUX_TMPDIR: "tmux" } as const;
for (const [name, folder] of Object.entries(folders)) {
	const dir = join(own, folder);
	mkdirSync(dir);
	process.env[name] = dir;
}
process.env.PI_CODING_AGENT_DIR = join(own, "config", "pi-agent");
// The machine's own cache and data folders, if it names any, are the real user's: under the private home instead.
for (const name of ["XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"]) delete process.env[name];
// The queue's key, as a user shares it between a coordinator and its workers (see job-seal.ts).
process.env.CREW_QUEUE_KEY = `key-of-${own}`;
// Inside a tmux session, tmux would talk to that session's server whatever TMUX_TMPDIR says.
delete process.env.TMUX;
// Tests talk only to 127.0.0.1, never through TLS to another host; a machine's extra CA file
// (a whole system bundle, on some) would cost each of the suite's thousand Node processes ~50 ms.
delete process.env.NODE_EXTRA_CA_CERTS;

/**
 * Ends every process whose environment names this file's folder once its tests are done (after
 * the file's own hooks: vitest runs after-hooks in reverse): a runner, agent or server that a
 * failed test left (its cleanup never reached) would otherwise run on, and take the CPU of every
 * file after it. The worker's own environment, as it started, names none.
 */
function endLeftovers(): void {
	const mark = `=${own}/`;
	for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
		if (Number(pid) === process.pid) continue;
		try {
			if (readFileSync(`/proc/${pid}/environ`, "latin1").includes(mark)) process.kill(Number(pid), "SIGKILL");
		} catch {
			// Gone already, or not ours to read.
		}
	}
}
afterAll(endLeftovers);
