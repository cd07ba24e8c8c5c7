import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, test } from "vitest";
import { developers } from "../honest/developer.js";

/** Code a command runs at strict (a repository's tests, say), with a registry allowed, reaching for other hosts. */
const developer = developers();
const servers: Server[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
});

/** A server on 127.0.0.1 that counts the requests it was sent. */
async function counting(): Promise<{ port: number; hits: () => number }> {
	let hits = 0;
	const server = createServer((_request, response) => {
		hits += 1;
		response.end("reached\n");
	});
	servers.push(server);
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	return { port: (server.address() as AddressInfo).port, hits: () => hits };
}

test("at strict, a command whose user allows a registry reaches it and nothing else: no other port of the machine, no host through the gate", async () => {
	const dev = developer();
	const allowed = await counting();
	const other = await counting();
	dev.config({ sandbox: { hosts: [`127.0.0.1:${allowed.port}`], registries: ["npm"] } });
	const reach = (url: string, proxy = "") =>
		`curl -s -m 5 ${proxy} -o /dev/null -w "${url} said %{http_code}\\n" ${url} 2>&1 || echo "${url} unreached"`;
	const script = [
		reach(`http://127.0.0.1:${allowed.port}/`),
		reach(`http://127.0.0.1:${other.port}/`),
		// Through crew's gate, as a proxy: a host that is not allowed, and this machine's other port.
		reach("http://example.com/"),
		reach(`http://127.0.0.1:${other.port}/`, "--noproxy '' --proxy http://127.0.0.1:3128"),
		"echo tried",
	].join("; ");
	const { stdout } = await dev.command("reach out", script, { sandbox: "strict" });
	expect(stdout).toContain("tried");
	expect(stdout).toContain(`http://127.0.0.1:${allowed.port}/ said 200`);
	expect(stdout).not.toMatch(new RegExp(`127\\.0\\.0\\.1:${other.port}/ said 200`));
	expect(stdout).not.toContain("example.com/ said 200");
	expect(allowed.hits()).toBe(1);
	expect(other.hits()).toBe(0);
});
