// @module-tag agent-cli
// @slow: crew doctor starts pi itself: its version, its extensions in RPC mode and its models
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import { CLI, PI_1, TestRepo } from "../../helpers.js";

interface Check {
	readonly name: string;
	readonly ok: boolean;
	readonly detail: string;
	readonly fix?: string;
}

function doctor(cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; checks: Map<string, Check> }> {
	return new Promise((resolve) => {
		execFile(process.execPath, [CLI, "doctor", "--json"], { cwd, env, timeout: 120_000 }, (error, stdout) => {
			const checks: Check[] = stdout.trim() ? JSON.parse(stdout).checks : [];
			resolve({ code: error ? Number(error.code ?? 1) : 0, checks: new Map(checks.map((c) => [c.name, c])) });
		});
	});
}

/** This PATH without the folders of crew's own programs, where the pi crew bundles is `pi`. */
const WITHOUT_PI = (process.env.PATH ?? "")
	.split(":")
	.filter((dir) => !dir.includes("node_modules"))
	.join(":");

/** A folder holding `pi`: pi 1.x, as a user installs it. */
function piOnePath(): string {
	const bin = mkdtempSync(join(tmpdir(), "crew-bin-"));
	writeFileSync(join(bin, "pi"), `#!/bin/sh\nexec ${PI_1.map((p) => `"${p}"`).join(" ")} "$@"\n`, { mode: 0o755 });
	return bin;
}

/** An extension written for pi 1.x: it imports pi 1.x's own package, which pi 0.73 does not have. */
const PI_ONE_EXTENSION = `import { isToolCallEventType } from "@earendil-works/pi-coding-agent";
export default function (pi) {
	pi.on("tool_call", async (event) => (isToolCallEventType("bash", event) ? undefined : undefined));
}
`;

let server: ScriptedModelServer;
beforeAll(async () => {
	server = await ScriptedModelServer.start(() => ({ kind: "text", text: "ok" }));
});
afterAll(async () => {
	await server.close();
});

/** A user whose pi has the scripted provider, and whose crew config is `config`. */
function user(config: object = {}): { env: NodeJS.ProcessEnv; agentDir: string } {
	const home = mkdtempSync(join(tmpdir(), "crew-home-"));
	const scripted = scriptedCliSetup("pi", server.url, home);
	mkdirSync(join(home, "config", "crew"), { recursive: true });
	writeFileSync(join(home, "config", "crew", "config.json"), JSON.stringify(config));
	const env = { PATH: WITHOUT_PI, ...scripted.env, XDG_CONFIG_HOME: join(home, "config") };
	return { env, agentDir: scripted.env.PI_CODING_AGENT_DIR as string };
}

describe("crew doctor names the pi it runs and whether its extensions load", () => {
	test("the user's pi on PATH, else CREW_PI, else runtimes.pi in the user's config: its file, its version and the rule", async () => {
		const repo = new TestRepo();
		const bin = piOnePath();
		const { env } = user();
		const onPath = await doctor(repo.dir, { ...env, PATH: `${bin}:${WITHOUT_PI}` });
		expect(onPath.checks.get("runtime pi (default)")).toMatchObject({
			ok: true,
			detail: `1.6.0: ${bin}/pi (pi on PATH)`,
		});
		expect(onPath.checks.get("pi extensions")).toMatchObject({ ok: true, detail: "the installed ones load" });
		expect(onPath.code).toBe(0);

		const byVariable = await doctor(repo.dir, { ...env, CREW_PI: join(bin, "pi") });
		expect(byVariable.checks.get("runtime pi (default)")?.detail).toBe(`1.6.0: ${bin}/pi (CREW_PI)`);

		const configured = user({ runtimes: { pi: join(bin, "pi") } });
		const byConfig = await doctor(repo.dir, configured.env);
		const file = join(configured.env.XDG_CONFIG_HOME as string, "crew", "config.json");
		expect(byConfig.checks.get("runtime pi (default)")?.detail).toBe(`1.6.0: ${bin}/pi (runtimes.pi in ${file})`);
	});

	test("an extension that does not load fails the check, naming its file and why, with the fix", async () => {
		const repo = new TestRepo();
		const { env, agentDir } = user();
		mkdirSync(join(agentDir, "extensions"), { recursive: true });
		writeFileSync(join(agentDir, "extensions", "for-pi-one.js"), PI_ONE_EXTENSION);
		// pi 1.x loads it; crew's own pi 0.73 cannot, and would fail every task.
		const one = await doctor(repo.dir, { ...env, PATH: `${piOnePath()}:${WITHOUT_PI}` });
		expect(one.checks.get("pi extensions")?.ok).toBe(true);
		expect(one.code).toBe(0);
		const bundled = await doctor(repo.dir, env);
		const check = bundled.checks.get("pi extensions");
		expect(check?.ok).toBe(false);
		expect(check?.detail).toMatch(
			/^Error: Failed to load extension ".*\/extensions\/for-pi-one\.js": .*Cannot find module '@earendil-works\/pi-coding-agent'/,
		);
		expect(check?.fix).toMatch(/runtimes\.pi/);
		expect(bundled.code).toBe(1);
	});
});
