// @module-tag node22
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { HostPort } from "../../src/core/sandbox-level.js";
import { bwrapArgs, findBwrap } from "../../src/runtimes/sandbox/confine.js";
import { NetworkGate } from "../../src/runtimes/sandbox/network-gate.js";
import { portNoneListensOn } from "../helpers.js";

const servers: Server[] = [];
const hits = { allowed: 0, other: 0 };
let allowedPort = 0;
let otherPort = 0;

async function serve(name: keyof typeof hits): Promise<number> {
	const server = createServer((_request, response) => {
		hits[name] += 1;
		response.end(`${name} reached`);
	});
	servers.push(server);
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
	allowedPort = await serve("allowed");
	otherPort = await serve("other");
});
afterAll(() => {
	for (const server of servers) server.close();
});

test("behind the gate an allowed loopback port is reached as it is; another is refused; a host through the proxy is refused and told of; an allowed port nothing listens on is told of", async () => {
	const bwrap = findBwrap() as string;
	const denied: HostPort[] = [];
	const unreachable: string[] = [];
	const closed = await portNoneListensOn();
	const allow = [
		{ host: "127.0.0.1", port: allowedPort },
		{ host: "127.0.0.1", port: closed },
	];
	const gate = await NetworkGate.open(allow, {
		denied: (d) => denied.push(d),
		unreachable: (d, why) => unreachable.push(`${d.host}:${d.port} ${why}`),
	});
	const workspace = mkdtempSync(join(tmpdir(), "crew-gate-"));
	const fetchOf = (port: number) =>
		`fetch("http://127.0.0.1:${port}/").then((r) => r.text()).then(console.log, (e) => console.log("refused", e.cause?.code))`;
	const script = `${fetchOf(allowedPort)}.then(() => ${fetchOf(otherPort)}).then(() => ${fetchOf(closed)})`;
	const inner = gate.wrap("socat", { file: process.execPath, args: ["-e", script] });
	const curl = gate.wrap("socat", {
		file: "sh",
		args: ["-c", "curl -s -o /dev/null -w '%{http_code}' http://example.com/ || true"],
	});
	const args = (command: { file: string; args: string[] }) => {
		// Node's own folder shown again: under /tmp (a fresh clone's Node 22), the sandbox's own /tmp hides it.
		const readable = [dirname(process.execPath)];
		const spec = { workspace, readOnlyWorkspace: false, writable: [], readable, hidden: [] };
		return bwrapArgs({ ...spec, network: { gate: gate.folder } }, command);
	};
	const run = (command: { file: string; args: string[] }) =>
		new Promise<string>((done) =>
			execFile(bwrap, args(command), { env: { ...process.env, ...gate.env() } }, (_e, stdout, stderr) =>
				done(`${stdout}${stderr}`),
			),
		);
	try {
		const said = await run(inner);
		expect(said).toContain("allowed reached");
		expect(said).toMatch(/refused ECONNREFUSED/);
		// Inside, the bridge took the connection, so the client sees it dropped; the gate says why.
		expect(said).toMatch(/refused UND_ERR_SOCKET/);
		expect(unreachable).toEqual([`127.0.0.1:${closed} ECONNREFUSED`]);
		expect(hits).toEqual({ allowed: 1, other: 0 });
		expect(await run(curl)).toBe("403");
		expect(denied).toEqual([{ host: "example.com", port: 80 }]);
	} finally {
		await gate.close();
	}
});
