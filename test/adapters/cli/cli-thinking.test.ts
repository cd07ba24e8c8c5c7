// @module-tag agent-cli
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { scriptedCliSetup } from "../../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../../src/scripted-model/scripted-model-server.js";
import { crew, TestRepo } from "../../helpers.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) await server.close();
});

test("crew run --thinking gives every agent that level, over the agent's own", async () => {
	const server = await ScriptedModelServer.start(() => ({ kind: "text", text: "done" }));
	servers.push(server);
	const repo = new TestRepo();
	const scripted = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-pi-")));
	repo.writeFile(
		".crew/agents/thinker.md",
		`---\nname: thinker\nruntime: pi\nmodel: ${scripted.model}\nthinking: high\n---\nYou think.\n`,
	);
	repo.workflow("one", [{ id: "a", role: "thinker" }]);
	const env = { ...process.env, ...scripted.env };
	const own = await crew(repo.dir, ["run", "g", "--workflow", "one", "--json"], 120_000, env);
	expect(own.code, own.stderr).toBe(0);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", "--thinking", "low", "--json"], 120_000, env);
	expect(run.code, run.stderr).toBe(0);
	expect(server.requests.map((r) => r.reasoning)).toEqual(["high", "low"]);
});

test("crew run --thinking refuses a level that is not one, naming the levels; crew plan warns of one a runtime lacks", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/c.md", "---\nname: c\nruntime: claude\nmodel: claude-sonnet-4-6\n---\nYou work.\n");
	repo.workflow("one", [{ id: "a", role: "c" }]);
	const bad = await crew(repo.dir, ["run", "g", "--workflow", "one", "--thinking", "deep"]);
	expect(bad.code).toBe(2);
	expect(bad.stderr).toMatch(/'deep' is invalid.*off, minimal, low, medium, high, xhigh, max/);
	const plan = await crew(repo.dir, ["plan", "g", "--workflow", "one", "--thinking", "minimal"]);
	expect(plan.code, plan.stderr).toBe(0);
	expect(plan.stderr).toContain(
		"crew: warning: " +
			join(repo.dir, ".crew/agents/c.md") +
			": runtime claude has no thinking level minimal: agent c runs at claude's default",
	);
});
