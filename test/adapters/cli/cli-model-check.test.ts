// @module-tag agent-cli
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { crew, gitRepo } from "../../helpers.js";
import { serverStarter } from "../../scripted-model/servers.js";

const startServer = serverStarter();

test("a --model pi cannot use is refused before anything starts, naming the nearest models pi has; one it has runs", async () => {
	const server = await startServer(() => ({ kind: "text", text: "done" }));
	const pi = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	const repo = gitRepo();
	const env = { ...process.env, ...pi.env };
	for (const args of [
		["run", "x", "--model", "nosuch/model-x", "--detach"],
		["agent", "x", "--model", "scripted/scripted-3"],
	]) {
		const refused = await crew(repo.dir, args, 60_000, env);
		expect(refused.code, refused.stderr).toBe(2);
		expect(refused.stderr).toContain(
			`crew: --model ${args[3]}: pi has no such model it can use (pi --list-models lists 2); the nearest: scripted/scripted-`,
		);
	}
	expect(JSON.parse((await crew(repo.dir, ["runs", "--json"], 60_000, env)).stdout)).toEqual([]);
	expect(server.requests).toHaveLength(0);

	const ran = await crew(repo.dir, ["agent", "x", "--model", pi.model], 120_000, env);
	expect(ran.code, ran.stderr).toBe(0);
	expect(server.requests.length).toBeGreaterThan(0);
});
