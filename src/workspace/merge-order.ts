// The order to merge a worktree run's branches in: of those its DAG allows, one that meets the fewest conflicts.

import type { MergeOrder } from "../core/types.js";
import { git, gitError, gitRun } from "./git.js";

/** A branch to merge, with the tasks (by id, among those merged) whose branches must go in before it. */
export interface BranchToMerge {
	readonly task: string;
	readonly branch: string;
	readonly after: readonly string[];
}

/** Most trial merges one choice makes: a bound on its cost whatever the number of branches. */
const MOST_TRIALS = 200;

/** Where a trial of an order stands: the merge so far, the conflicts met and the heads that met them. */
interface Trial {
	readonly commit: string;
	readonly conflicts: number;
	readonly conflicting: readonly string[];
}

/**
 * Of the orders the branches' `after` allows, one whose merges into `base`, one after another,
 * conflict least, found by trial merges that touch no work tree (`git merge-tree`): dependency
 * order (the order given) first, then others, depth first and clean merges before conflicting
 * ones, cutting an order short once it meets as many conflicts as the best so far, within
 * `MOST_TRIALS` merges. As the integration does, a
 * branch that holds the work of one that conflicted is left out, not counted again. Dependency
 * order wins ties, so a run whose order conflicts nowhere keeps it.
 */
export async function chooseMergeOrder(
	root: string,
	base: string,
	branches: readonly BranchToMerge[],
): Promise<MergeOrder> {
	const trials = new TrialMerges(root);
	const tips = new Map<string, string>();
	for (const b of branches) {
		const tip = await trials.tip(b.branch);
		if (tip !== undefined) tips.set(b.task, tip);
	}
	const present = branches.filter((b) => tips.has(b.task));
	const ids = present.map((b) => b.task);
	const step = async (at: Trial, task: string): Promise<Trial> => {
		const tip = tips.get(task) as string;
		for (const head of at.conflicting) if (await trials.holds(tip, head)) return at;
		const merged = await trials.merge(at.commit, tip);
		if (merged !== undefined) return { ...at, commit: merged };
		return { ...at, conflicts: at.conflicts + 1, conflicting: [...at.conflicting, tip] };
	};
	let best: { order: string[]; conflicts: number } | undefined;
	const walk = async (order: string[], at: Trial): Promise<void> => {
		if (best !== undefined && (at.conflicts >= best.conflicts || trials.made >= MOST_TRIALS)) return;
		if (order.length === present.length) {
			best = { order, conflicts: at.conflicts };
			return;
		}
		const placed = new Set(order);
		const next: { task: string; at: Trial }[] = [];
		for (const b of present) {
			if (placed.has(b.task) || !b.after.every((t) => placed.has(t) || !tips.has(t))) continue;
			next.push({ task: b.task, at: await step(at, b.task) });
		}
		// Clean merges first: of orders that conflict as little, one that merges the most before a conflict.
		next.sort((x, y) => x.at.conflicts - y.at.conflicts);
		for (const n of next) {
			await walk([...order, n.task], n.at);
			if (best?.conflicts === 0) return;
		}
	};
	const start: Trial = { commit: base, conflicts: 0, conflicting: [] };
	let inOrder = start;
	for (const task of ids) inOrder = await step(inOrder, task);
	best = { order: ids, conflicts: inOrder.conflicts };
	if (inOrder.conflicts > 0) await walk([], start);
	const chosen = best as { order: string[]; conflicts: number };
	return {
		chosen: chosen.order,
		conflicts: chosen.conflicts,
		dependencyOrder: ids,
		dependencyOrderConflicts: inOrder.conflicts,
		tried: trials.made,
	};
}

/**
 * Merges tried in the object store alone: `git merge-tree --write-tree` gives a merge's tree or
 * its conflicts; a clean one becomes a commit (no branch points at it), so the next trial can
 * merge onto it. Each answer is kept for this choice only.
 */
class TrialMerges {
	readonly #root: string;
	readonly #merges = new Map<string, string | undefined>();
	made = 0;

	constructor(root: string) {
		this.#root = root;
	}

	async tip(branch: string): Promise<string | undefined> {
		const found = await gitRun(this.#root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]);
		return found.code === 0 ? found.stdout.trim() : undefined;
	}

	/** Whether commit `tip` holds commit `head`. */
	async holds(tip: string, head: string): Promise<boolean> {
		return (await gitRun(this.#root, ["merge-base", "--is-ancestor", head, tip])).code === 0;
	}

	/** The commit merging `tip` into `into` makes; undefined when the merge conflicts. */
	async merge(into: string, tip: string): Promise<string | undefined> {
		const key = `${into} ${tip}`;
		if (this.#merges.has(key)) return this.#merges.get(key);
		this.made++;
		const args = ["merge-tree", "--write-tree", "--name-only", "--no-messages", into, tip];
		const result = await gitRun(this.#root, args);
		// 0: merged cleanly; 1: it conflicts; anything else is git failing.
		if (result.code !== 0 && result.code !== 1) throw gitError(this.#root, args, result);
		const tree = result.stdout.split("\n", 1)[0]?.trim() ?? "";
		const commit =
			result.code === 0
				? (await git(this.#root, ["commit-tree", tree, "-p", into, "-p", tip, "-m", "crew: trial merge"])).trim()
				: undefined;
		this.#merges.set(key, commit);
		return commit;
	}
}
