import { findProject } from "../../config/project.js";
import { checkId } from "../../core/ids.js";
import { Worktrees } from "../../workspace/worktrees.js";
import { Exit } from "./exit-codes.js";

/** Brings a run's integration branch into the branch you are on, only when asked and only when clean. */
export async function mergeCommand(runId: string): Promise<number> {
	checkId("run", runId);
	const project = findProject(process.cwd());
	const { branch, into, commit } = await new Worktrees(project.root, project.crewDir).mergeIntoCurrent(runId);
	process.stdout.write(`merged ${branch} into ${into}: now at ${commit.slice(0, 12)}\n`);
	return Exit.Ok;
}
