import { expect, test } from "vitest";
import { cancelLiveRuns, crew, crewProcess, TestRepo, waitFor } from "../../helpers.js";

const WARNING = /warning: run \S+ is also working in this checkout/;

test("a second run in the checkout another run is writing warns, naming it and --workspace worktree; --allow-shared silences it", async () => {
	const repo = new TestRepo().agent("worker", "--hang").agent("quick");
	repo.workflow("stuck", [{ id: "a" }]);
	repo.workflow("one", [{ id: "x", role: "quick" }]);
	const first = crewProcess(repo.dir, ["run", "hold the files", "--workflow", "stuck"]);
	try {
		await waitFor("the first run's agent", () => repo.starts("a").length === 1);
		const firstId = JSON.parse((await crew(repo.dir, ["status", "--json"])).stdout).run.id as string;

		const second = await crew(repo.dir, ["run", "also edit", "--workflow", "one"]);
		expect(second.code).toBe(0);
		expect(second.stderr).toMatch(WARNING);
		expect(second.stderr).toContain(`run ${firstId}`);
		expect(second.stderr).toContain("--workspace worktree");
		expect(second.stderr).toContain("--allow-shared");

		const allowed = await crew(repo.dir, ["run", "also edit", "--workflow", "one", "--allow-shared"]);
		expect(allowed.code).toBe(0);
		expect(allowed.stderr).not.toMatch(WARNING);

		const dry = await crew(repo.dir, ["run", "also edit", "--workflow", "one", "--runtime", "dry-run"]);
		expect(dry.stderr).not.toMatch(WARNING);
	} finally {
		await cancelLiveRuns(repo.dir);
		first.kill("SIGKILL");
	}
	const alone = await crew(repo.dir, ["run", "edit alone", "--workflow", "one"]);
	expect(alone.code).toBe(0);
	expect(alone.stderr).not.toMatch(WARNING);
});
