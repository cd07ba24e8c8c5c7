import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { hostPortText } from "../../../src/core/sandbox-level.js";
import { ZERO_USAGE } from "../../../src/core/usage.js";
import { piHosts } from "../../../src/runtimes/agent/provider-hosts.js";
import { RuntimeRegistry } from "../../../src/runtimes/runtime-registry.js";
import type { RunControl, WorkerResult, WorkerRuntime } from "../../../src/runtimes/worker-runtime.js";
import { testCrew } from "../../engine/engine-helpers.js";
import { crew, TestRepo } from "../../helpers.js";

/** Reports the network a confined pi agent without a model gets: every provider's hosts pi knows. */
class ModellessPi implements WorkerRuntime {
	readonly name = "modelless";
	constructor(readonly network: readonly string[]) {}
	async run(_request: unknown, control: RunControl): Promise<WorkerResult> {
		control.onEvent({ type: "confined", network: this.network });
		return { ok: true, text: "done", exitCode: 0, usage: ZERO_USAGE, artifacts: [] };
	}
}

test("a task whose agent may reach many hosts says how many on its status line, and where they are listed", async () => {
	const home = mkdtempSync(join(tmpdir(), "crew-no-pi-"));
	const network = [...new Set(piHosts(undefined, { HOME: home, PI_CODING_AGENT_DIR: home }).map(hostPortText))];
	expect(network.length).toBeGreaterThan(20);
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/scout.md", "---\nname: scout\nruntime: modelless\n---\nYou look.\n");
	repo.workflow("one", [{ id: "look", role: "scout" }]);
	const engine = testCrew(repo, { runtimes: new RuntimeRegistry([new ModellessPi(network)]) });
	let runId: string;
	try {
		runId = engine.create(await engine.plan({ goal: "g", workflow: "one", sandbox: "workspace" }));
		expect(await engine.execute(runId)).toBe("completed");
	} finally {
		engine.close();
	}
	const status = await crew(repo.dir, ["status", runId]);
	expect(status.code).toBe(0);
	const line = status.stdout.split("\n").find((l) => l.includes("look")) ?? "";
	expect(line).toMatch(
		new RegExp(
			`attempt 1 +sandbox workspace, network of ${network.length} hosts \\(crew status ${runId} --json lists them\\)$`,
		),
	);
	expect(line).not.toContain("api.anthropic.com");
	const json = JSON.parse((await crew(repo.dir, ["status", runId, "--json"])).stdout);
	expect(json.tasks[0].sandbox.network).toEqual(network);
});
