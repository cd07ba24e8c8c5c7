// `crew reconcile`: whether the store, runners, workers, worktrees and branches agree, fixed where it can.

import { findProject } from "../../config/project.js";
import type { ReconcileReport } from "../../engine/control/reconcile.js";
import { Exit } from "./exit-codes.js";
import { openCrew } from "./open-crew.js";
import { print } from "./print.js";

function reportText(r: ReconcileReport, fix: boolean): string {
	const lines: string[] = [];
	const done = (fixed: boolean) => (fixed ? "  → fixed" : fix ? "  → left (a runner took it meanwhile)" : "");
	for (const o of r.orphanedRuns) {
		const delegated = o.parent
			? ` (delegated by run ${o.parent.runId}, task ${o.parent.taskId}: crew resume ${o.parent.runId} goes on with it, crew cancel ${o.parent.runId} ends it)`
			: "";
		lines.push(
			`orphaned run ${o.runId}: recorded ${o.status}, its runner (${o.runner}) is gone${delegated}${done(o.fixed)}`,
		);
	}
	for (const p of r.orphanedProcesses) {
		const left = "  → left: only its run id marks it, which does not prove crew started it; end it yourself";
		const end = p.proven ? done(p.fixed) : fix ? left : "";
		lines.push(`orphaned workers of run ${p.runId} (${p.runStatus}): process group ${p.pgid}${end}`);
	}
	for (const w of r.leftoverWorktrees) {
		const state = w.dirty ? "uncommitted changes" : "clean";
		lines.push(
			`leftover worktree ${w.path} (${state}): ${w.why}; crew cleanup ${w.runId} keeps its work on its branch`,
		);
	}
	for (const b of r.strayBranches) lines.push(`branch ${b.branch}: its run ${b.runId} is not in this store (kept)`);
	for (const f of r.unfinishedForks) {
		const what = `its folder and ${f.branches.length} branch${f.branches.length === 1 ? "" : "es"}, copies of run ${f.from}'s`;
		const then = f.fixed ? "  → removed" : "; crew reconcile --fix removes them";
		lines.push(`unfinished fork ${f.runId}: its making stopped before it was recorded, leaving ${what}${then}`);
	}
	for (const f of r.strayFolders) lines.push(`run folder ${f.path}: its run ${f.runId} is not in this store (kept)`);
	for (const n of r.notes) lines.push(`note: ${n}`);
	if (lines.length === r.notes.length) lines.unshift("runs, runners, workers, worktrees and branches agree");
	return `${lines.join("\n")}\n`;
}

/**
 * Checks that the store, runners, workers, worktrees and branches agree; with `--fix`, ends
 * orphaned workers crew can prove it started and marks runs whose runner is gone interrupted, keeping all work. Exits 1
 * while something found is left unfixed.
 */
export async function reconcileCommand(options: { fix?: boolean; json?: boolean }): Promise<number> {
	const crew = openCrew(findProject(process.cwd()));
	try {
		const fix = options.fix === true;
		const report = await crew.reconcile(fix);
		print(options.json ? `${JSON.stringify(report)}\n` : reportText(report, fix));
		const open =
			report.orphanedRuns.some((o) => !o.fixed) ||
			report.orphanedProcesses.some((p) => !p.fixed) ||
			report.unfinishedForks.some((f) => !f.fixed);
		return open ? Exit.Failed : Exit.Ok;
	} finally {
		crew.close();
	}
}
