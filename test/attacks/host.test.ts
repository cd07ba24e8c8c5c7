// @module-tag agent-cli
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { exitOf } from "../helpers.js";
import { victims } from "./attacker.js";

/** An agent that reaches past its workspace to the machine: the user's sockets and processes. */
const victim = victims();
const closing: (() => void)[] = [];
afterEach(() => {
	for (const close of closing.splice(0)) close();
});

/** A unix socket listening at `path` (a session bus, an ssh-agent, docker's), counting who connects. */
async function listening(path: string): Promise<{ connections: () => number }> {
	let connections = 0;
	const server: Server = createServer((socket) => {
		connections += 1;
		socket.end("hello from the host\n");
	});
	await new Promise<void>((done) => server.listen(path, done));
	closing.push(() => {
		server.close();
		rmSync(path, { force: true });
	});
	return { connections: () => connections };
}

test("the user's sockets under XDG_RUNTIME_DIR and /run cannot be reached", async () => {
	const v = victim();
	const runtimeDir = v.env.XDG_RUNTIME_DIR as string;
	const bus = await listening(join(runtimeDir, "bus"));
	const run = await listening(`/run/crew-attack-${process.pid}-${Date.now()}.sock`);
	const runPath = readdirSync("/run").find((name) => name.startsWith(`crew-attack-${process.pid}`));
	const { seen } = await v.agent([
		`echo "listed=$(ls -a "$XDG_RUNTIME_DIR" /run /var/run | grep -c -e crew-attack- -e '^bus$')"; echo hi | socat - "UNIX-CONNECT:$XDG_RUNTIME_DIR/bus"; echo hi | socat - UNIX-CONNECT:/run/${runPath}`,
	]);
	expect(bus.connections()).toBe(0);
	expect(run.connections()).toBe(0);
	expect(seen).not.toContain("hello from the host");
	expect(seen).toContain("listed=0");
});

test("the user's processes can be neither seen nor signalled", async () => {
	const v = victim();
	const host = spawn("sleep", ["3017"], { stdio: "ignore" });
	closing.push(() => host.kill("SIGKILL"));
	const pid = host.pid as number;
	const { seen } = await v.agent([
		`cat /proc/[0-9]*/cmdline | tr '\\0' ' '; kill -STOP ${pid}; kill -TERM ${pid}; echo sent`,
	]);
	expect(seen).not.toContain("sleep 3017");
	const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
	expect(state).toBe("S");
	expect(host.exitCode).toBeNull();
	host.kill("SIGKILL");
	await exitOf(host);
});
