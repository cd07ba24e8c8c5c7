import { expect, test } from "vitest";
import { CrewClient } from "../../../src/adapters/pi/crew-client.js";
import { runReport } from "../../../src/adapters/pi/run-report.js";
import { crew } from "../../helpers.js";
import { PLANNER_ORDER, plannerRepo, UNTIL_ORDER, untilRepo } from "../growing-runs.js";

test("the report a pi session gets lists the tasks a run gained, in DAG order", async () => {
	for (const { grown, order } of [
		{ grown: plannerRepo(), order: PLANNER_ORDER },
		{ grown: untilRepo(), order: UNTIL_ORDER },
	]) {
		const run = await crew(grown.repo.dir, ["run", "grow the run", ...grown.args, "--json"]);
		expect(run.code, run.stderr).toBe(0);
		const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
		const client = new CrewClient(grown.repo.dir);
		const { text } = await runReport((tool, args) => client.call(tool, args), runId);
		await client.close();
		const listed = text
			.split("\n")
			.filter((line) => line.startsWith("- "))
			.map((line) => line.slice(2).split(" ")[0]);
		expect(listed).toEqual(order);
		const results = text
			.split("\n")
			.filter((line) => line.startsWith("## "))
			.map((line) => line.slice(3));
		expect(results).toEqual(order.filter((id) => !id.startsWith("until.1")));
	}
});
