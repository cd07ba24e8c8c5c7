import { expect, test } from "vitest";
import { TeamActions } from "../../src/adapters/shared/team-actions.js";
import { projectAt } from "../../src/config/project.js";
import { TestRepo } from "../helpers.js";

test("a session's model and thinking level reach the plan through the team actions, under the run's own", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/plain.md", "---\nname: plain\nmodel: false\n---\nYou work.\n");
	repo.workflow("one", [{ id: "a", role: "plain" }]);
	const actions = new TeamActions(projectAt(repo.dir));
	const session = { goal: "g", workflow: "one", defaultModel: "scripted/session", defaultThinking: "low" as const };
	expect((await actions.plan(session)).tasks[0]).toMatchObject({ model: "scripted/session", thinking: "low" });
	const overridden = await actions.plan({ ...session, model: "scripted/run", thinking: "high" });
	expect(overridden.tasks[0]).toMatchObject({ model: "scripted/run", thinking: "high" });
});
