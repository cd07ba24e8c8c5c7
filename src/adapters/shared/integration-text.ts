// A run's integration in lines for people: what its branch holds, what is missing, and how to merge it.

import type { RunRecord } from "../../core/records.js";
import type { IntegrationRecord } from "../../core/types.js";

/**
 * How a run's integration went, in lines for people: what its branch holds, what is missing
 * from it and why, and the command that brings it into their branch.
 */
export function integrationLines(runId: string, record: IntegrationRecord): string[] {
	// Work that is on the branch although its task was not merged (it needs attention, say).
	const carried = (record.carried ?? []).map(
		(c) => `  ${record.branch} also holds the work of ${c.task}, not merged itself, through ${c.by.join(", ")}`,
	);
	return [...statusLines(runId, record), ...orderLines(record), ...carried];
}

/** The collisions foreseen between the run's tasks' changes while they worked, a line each. */
export function foreseenLines(foreseen: RunRecord["foreseen"]): string[] {
	return foreseen.map((c) => {
		const where = c.regions.length > 0 ? c.regions.map((r) => `${r.file} lines ${r.lines[0]}–${r.lines[1]}`) : c.files;
		return `foreseen: ${c.tasks[0]} and ${c.tasks[1]} both change ${where.join(", ")}`;
	});
}

/** Why the branches went in another order than dependency order, when they did. */
function orderLines(record: IntegrationRecord): string[] {
	const order = record.order;
	if (!order) return [];
	const merges = (n: number) => `${n} conflicting merge${n === 1 ? "" : "s"}`;
	return [
		`  merged in the order ${order.chosen.join(", ")}: ${merges(order.conflicts)}, where dependency order (${order.dependencyOrder.join(", ")}) meets ${order.dependencyOrderConflicts} (${order.tried} trial merges chose it)`,
	];
}

function statusLines(runId: string, record: IntegrationRecord): string[] {
	const merged = record.merged.length > 0 ? record.merged.join(", ") : "no task's work";
	const branches = (ids: readonly string[]) => ids.map((id) => `crew-tasks/${runId}/${id}`).join(", ");
	switch (record.status) {
		case "merged":
			return [`integration: merged ${merged} into ${record.branch} (crew merge ${runId})`];
		case "resolved":
			return [
				`integration: merged ${merged} into ${record.branch}, conflicts resolved by ${record.resolvedBy.join(", ")} (crew merge ${runId})`,
			];
		case "skipped":
			return [
				`integration: skipped, the run was cancelled; the completed tasks' work is on ${branches(record.missing)}`,
			];
		default: {
			const why =
				record.conflicts.length > 0
					? record.conflicts.map((c) => `${c.task} conflicts with the work merged before it in ${c.files.join(", ")}`)
					: [`git failed: ${record.error ?? "unknown error"}`];
			return [
				`integration: ${record.status}: ${why.join("; ")}`,
				`  ${record.branch} holds ${merged}; missing: ${record.missing.join(", ")} (on ${branches(record.missing)})`,
				`  crew merge ${runId} --partial brings what it holds`,
			];
		}
	}
}
