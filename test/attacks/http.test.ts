import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { afterEach, expect, test } from "vitest";
import { CLI, exitOf } from "../helpers.js";
import { victims } from "./attacker.js";

/**
 * Another local user, or a web page in the user's browser (by DNS rebinding), reading crew serve's
 * API: every run's prompts, transcripts and patches must need the token crew serve printed.
 */
const victim = victims();
const servers: ChildProcess[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) {
		server.kill("SIGTERM");
		await exitOf(server);
	}
});

async function serveOn(v: ReturnType<typeof victim>, host: string): Promise<{ port: number; token: string }> {
	const server = spawn(process.execPath, [CLI, "serve", "--port", "0", "--host", host], { cwd: v.repo, env: v.env });
	servers.push(server);
	let said = "";
	return await new Promise((resolve, reject) => {
		server.stdout?.on("data", (chunk: Buffer) => {
			said += chunk.toString();
			const port = /:(\d+)\/\?token=(\S+)/.exec(said);
			if (port) resolve({ port: Number(port[1]), token: port[2] as string });
		});
		server.once("exit", () => reject(new Error(`crew serve ended: ${said}`)));
	});
}

function get(port: number, path: string, headers: Record<string, string> = {}, post?: string) {
	return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
		const method = post === undefined ? "GET" : "POST";
		const req = request({ host: "127.0.0.1", port, path, headers, method }, (res) => {
			let body = "";
			res.on("data", (chunk: Buffer) => {
				body += chunk.toString();
			});
			res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
		});
		req.on("error", reject);
		req.end(post);
	});
}

test("the API's reads of runs, prompts, transcripts and metrics need the token", async () => {
	const v = victim();
	expect((await v.crew(["run", "read my secrets", "--runtime", "dry-run"])).code).toBe(0);
	const [run] = JSON.parse((await v.crew(["runs", "--json"])).stdout) as { id: string }[];
	const { port, token } = await serveOn(v, "127.0.0.1");
	const paths = ["/api/runs", `/api/runs/${run?.id}`, `/api/runs/${run?.id}/tasks/explore`, "/api/inbox", "/metrics"];
	for (const path of paths) {
		const stranger = await get(port, path);
		expect(stranger.status, path).toBe(401);
		expect(stranger.body, path).not.toContain("read my secrets");
		expect((await get(port, path, { authorization: `Bearer ${token}` })).status, path).toBe(200);
	}
	// The dashboard's link sets a cookie its pages' reads carry.
	const page = await get(port, `/?token=${token}`);
	const cookie = String(page.headers["set-cookie"]).split(";")[0] as string;
	expect((await get(port, "/api/runs", { cookie })).status).toBe(200);
	expect(page.headers["x-content-type-options"]).toBe("nosniff");
});

test("beyond loopback, a request naming another host is refused, token or not", async () => {
	const v = victim();
	const { port, token } = await serveOn(v, "0.0.0.0");
	const rebound = await get(port, "/api/runs", { host: `attacker.example:${port}`, authorization: `Bearer ${token}` });
	expect(rebound.status).toBe(403);
	expect((await get(port, "/api/runs", { authorization: `Bearer ${token}` })).status).toBe(200);
});

test("a web page in the user's browser cannot start work: the dashboard's cookie alone starts no run and adds no schedule", async () => {
	const v = victim();
	const { port, token } = await serveOn(v, "127.0.0.1");
	const page = await get(port, `/?token=${token}`);
	const cookie = String(page.headers["set-cookie"]).split(";")[0] as string;
	// What a form on another site may send without asking: text/plain, the cookie riding along.
	const simple = { cookie, "content-type": "text/plain" };
	const asks: [string, string][] = [
		["/api/runs", JSON.stringify({ goal: "run my command", runtime: "dry-run" })],
		["/api/schedules", JSON.stringify({ name: "nightly", goal: "x", every: "1h", runtime: "dry-run" })],
	];
	for (const [path, body] of asks) {
		const sent = await get(port, path, simple, body);
		expect(sent.status, path).toBe(401);
		const rebound = await get(port, path, { ...simple, host: `attacker.example:${port}` }, body);
		expect(rebound.status, path).toBe(403);
	}
	expect(JSON.parse((await v.crew(["runs", "--json"])).stdout)).toEqual([]);
	expect(JSON.parse((await v.crew(["schedule", "list", "--json"])).stdout).schedules).toEqual([]);
	// With the token as a header, as the dashboard sends it, the same run starts.
	const own = await get(
		port,
		"/api/runs",
		{ authorization: `Bearer ${token}`, "content-type": "application/json" },
		asks[0]?.[1],
	);
	expect(own.status, own.body).toBe(201);
});
