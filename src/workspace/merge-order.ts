// The order to merge a worktree run's branches in: of those its DAG allows, one that meets the fewest conflicts.

import type { MergeOrder } from "../core/types.js";
import { type Changes, changesOf, mayConflict } from "./collisions.js";
import { git, gitError, gitRun } from "./git.js";

/** A branch to merge, with the tasks (by id, among those merged) whose branches must go in before it. */
export interface BranchToMerge {
	readonly task: string;
	readonly branch: string;
	readonly after: readonly string[];
}

/** Most branches whose best set is searched whole (2^n sets); past it, sets are made greedily. */
const MOST_SEARCHED = 16;

/**
 * Of the orders the branches' `after` allows, one whose merges into `base`, one after another,
 * conflict least. Dependency order (the order given) is merged on trial first (`git merge-tree`,
 * no work tree touched); when it conflicts, each two branches that might conflict are
 * merged on trial with each other, the largest set of branches none of which conflict with
 * another (and that holds every branch a member waits for) goes first, the rest after, each part
 * in dependency order; that order is merged on trial too, and chosen only when it conflicts less.
 * As the integration does, a branch that holds the work of one that conflicted is left out, not
 * counted again. A run none of whose branches might conflict (see `mayConflict`) makes no trial
 * merge at all.
 */
export async function chooseMergeOrder(
	root: string,
	base: string,
	branches: readonly BranchToMerge[],
): Promise<MergeOrder> {
	const trials = new TrialMerges(root);
	const tips = await trials.tips(branches.map((b) => b.branch));
	const present = branches.filter((b) => tips.has(b.branch));
	const ids = present.map((b) => b.task);
	const tip = (task: string) => tips.get(present[ids.indexOf(task)]?.branch ?? "") as string;
	const unchanged = { chosen: ids, conflicts: 0, dependencyOrder: ids, dependencyOrderConflicts: 0, tried: 0 };
	const changes = await Promise.all(ids.map((task) => changesOf(root, base, tip(task))));
	const sharing = (i: number, j: number) => mayConflict(changes[i] as Changes, changes[j] as Changes);
	const pairs = ids.flatMap((_, i) => ids.flatMap((__, j) => (j > i && sharing(i, j) ? [[i, j] as const] : [])));
	if (pairs.length === 0) return unchanged;

	const inOrder = async (order: readonly string[]): Promise<number> => {
		let commit = base;
		const conflicting: string[] = [];
		for (const task of order) {
			if (await trials.holdsAny(tip(task), conflicting)) continue;
			const merged = await trials.merge(commit, tip(task));
			if (merged === undefined) conflicting.push(tip(task));
			else commit = merged;
		}
		return conflicting.length;
	};
	const dependencyOrderConflicts = await inOrder(ids);
	if (dependencyOrderConflicts === 0) return { ...unchanged, tried: trials.made };

	const clash = ids.map(() => new Set<number>());
	for (const [i, j] of pairs) {
		if (await trials.conflicts(tip(ids[i] as string), tip(ids[j] as string))) {
			clash[i]?.add(j);
			clash[j]?.add(i);
		}
	}
	const needs = present.map((b) => b.after.flatMap((t) => (ids.includes(t) ? [ids.indexOf(t)] : [])));
	const first = largestCalmSet(clash, needs);
	const order = [...ids.filter((_, i) => first.has(i)), ...ids.filter((_, i) => !first.has(i))];
	const conflicts = order.some((t, k) => t !== ids[k]) ? await inOrder(order) : dependencyOrderConflicts;
	const better = conflicts < dependencyOrderConflicts;
	return {
		chosen: better ? order : ids,
		conflicts: better ? conflicts : dependencyOrderConflicts,
		dependencyOrder: ids,
		dependencyOrderConflicts,
		tried: trials.made,
	};
}

/**
 * The largest set of branches (by index) none of which clashes with another, holding every branch
 * a member needs; among sets as large, the first in dependency order. Searched whole up to
 * `MOST_SEARCHED` branches, else made greedily in dependency order.
 */
function largestCalmSet(clash: readonly ReadonlySet<number>[], needs: readonly (readonly number[])[]): Set<number> {
	const n = clash.length;
	const calm = (set: ReadonlySet<number>) =>
		[...set].every((i) => [...set].every((j) => !clash[i]?.has(j)) && (needs[i] ?? []).every((d) => set.has(d)));
	if (n > MOST_SEARCHED) {
		const set = new Set<number>();
		for (let i = 0; i < n; i++) {
			set.add(i);
			if (!calm(set)) set.delete(i);
		}
		return set;
	}
	let best = new Set<number>();
	// Sets by bit, the first branch the highest bit: counting down meets a set before any set as large that comes later in dependency order.
	for (let mask = (1 << n) - 1; mask > 0; mask--) {
		const set = new Set(Array.from({ length: n }, (_, k) => k).filter((i) => mask & (1 << (n - 1 - i))));
		if (set.size > best.size && calm(set)) best = set;
	}
	return best;
}

/**
 * Merges tried in the object store alone: `git merge-tree --write-tree` gives a merge's tree or
 * its conflicts; a clean one becomes a commit (no branch points at it), so the next trial can
 * merge onto it.
 */
class TrialMerges {
	readonly #root: string;
	made = 0;

	constructor(root: string) {
		this.#root = root;
	}

	/** The tips of those of `branches` that exist, by branch, in one call. */
	async tips(branches: readonly string[]): Promise<Map<string, string>> {
		if (branches.length === 0) return new Map();
		const refs = branches.map((b) => `refs/heads/${b}`);
		const out = await git(this.#root, ["for-each-ref", "--format=%(refname) %(objectname)", ...refs]);
		const found = new Map<string, string>();
		for (const line of out.split("\n").filter(Boolean)) {
			const [ref, commit] = line.split(" ");
			if (ref && commit && refs.includes(ref)) found.set(ref.slice("refs/heads/".length), commit);
		}
		return found;
	}

	/** Whether commit `tip` holds any of `heads`. */
	async holdsAny(tip: string, heads: readonly string[]): Promise<boolean> {
		for (const head of heads) {
			if ((await gitRun(this.#root, ["merge-base", "--is-ancestor", head, tip])).code === 0) return true;
		}
		return false;
	}

	/** Whether merging `a` and `b` conflicts. */
	async conflicts(a: string, b: string): Promise<boolean> {
		return (await this.#mergeTree(a, b)) === undefined;
	}

	/** The commit merging `tip` into `into` makes; undefined when the merge conflicts. */
	async merge(into: string, tip: string): Promise<string | undefined> {
		const tree = await this.#mergeTree(into, tip);
		if (tree === undefined) return undefined;
		return (await git(this.#root, ["commit-tree", tree, "-p", into, "-p", tip, "-m", "crew: trial merge"])).trim();
	}

	/** The tree of merging `a` and `b`; undefined when it conflicts. */
	async #mergeTree(a: string, b: string): Promise<string | undefined> {
		this.made++;
		const args = ["merge-tree", "--write-tree", "--name-only", "--no-messages", a, b];
		const result = await gitRun(this.#root, args);
		// 0: merged cleanly; 1: it conflicts; anything else is git failing.
		if (result.code === 1) return undefined;
		if (result.code !== 0) throw gitError(this.#root, args, result);
		return result.stdout.split("\n", 1)[0]?.trim() ?? "";
	}
}
