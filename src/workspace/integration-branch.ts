// A worktree run's integration branch: its tasks' branches merged in, conflicts resolved, merged on request.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CrewError, ErrorCode } from "../core/errors.js";
import { checkId } from "../core/ids.js";
import type { MergeOrder } from "../core/types.js";
import { git, gitError, gitRun, userGitRun } from "./git.js";
import { chooseMergeOrder } from "./merge-order.js";
import { type CommittedChange, dirtyPaths, type Worktrees } from "./worktrees.js";

/** A merge of a task's branch that conflicted: the task, its branch and head, the tree it met, the files. */
export interface MergeConflict {
	readonly task: string;
	readonly branch: string;
	readonly head: string;
	readonly intoTree: string;
	readonly files: readonly string[];
}

/**
 * A conflict already resolved, by the resolution task `id` whose branch holds the resolved merge:
 * the same conflict met again takes that merge's tree.
 */
export interface Resolution {
	readonly id: string;
	readonly task: string;
	readonly head: string;
	readonly intoTree: string;
}

/** How integrating a run's task branches went: the branch, what was merged, and the conflicts met. */
export interface Integration {
	readonly branch: string;
	readonly merged: readonly string[];
	/** The resolutions taken. */
	readonly resolvedBy: readonly string[];
	/** Where the branch ended. */
	readonly commit: string;
	readonly conflicts: readonly MergeConflict[];
}

/**
 * A worktree run's integration branch, `crew/<runId>`: its completed tasks' branches merged in
 * dependency order, in a worktree of its own (`.crew/worktrees/<runId>.integration`), where a
 * resolution task also resolves a conflict; and, when the user asks, merged into their branch.
 */
export class IntegrationBranch {
	readonly #root: string;
	readonly #dir: string;
	readonly #worktrees: Worktrees;

	constructor(root: string, crewDir: string, worktrees: Worktrees) {
		this.#root = root;
		this.#dir = join(crewDir, "worktrees");
		this.#worktrees = worktrees;
	}

	/** `crew/<runId>`. */
	name(runId: string): string {
		return `crew/${checkId("run", runId)}`;
	}

	/**
	 * Merges the branches of `tasks` (completed tasks, in dependency order) into `crew/<runId>`,
	 * made anew from `base`, in a worktree of its own that is removed afterwards. The user's branch
	 * and checkout are not touched. A conflict met before, on the same tree with the same head, is
	 * settled by its resolution's tree. Any other is described, and the integration stops there
	 * (`stopAtConflict`, leaving the branch as it was before that merge) or goes on without that
	 * task and the tasks whose branches hold its work.
	 */
	async integrate(
		runId: string,
		base: string,
		tasks: readonly string[],
		resolutions: readonly Resolution[],
		stopAtConflict: boolean,
	): Promise<Integration> {
		const branch = this.name(runId);
		const path = this.#integrationPath(runId);
		if (existsSync(path)) await git(this.#root, ["worktree", "remove", "--force", path]);
		await git(this.#root, ["worktree", "add", "--quiet", "-B", branch, path, base]);
		try {
			const merged: string[] = [];
			const resolvedBy: string[] = [];
			const conflicts: MergeConflict[] = [];
			const head = async () => (await git(path, ["rev-parse", "HEAD"])).trim();
			for (const task of tasks) {
				const taskBranch = this.#worktrees.branchOf(runId, task);
				if (!(await this.#hasBranch(taskBranch))) continue;
				if (await this.#holdsAny(taskBranch, conflicts)) continue;
				const conflict = await this.#merge(path, task, taskBranch);
				if (conflict) {
					const resolution = resolutions.find(
						(r) => r.task === task && r.head === conflict.head && r.intoTree === conflict.intoTree,
					);
					if (!resolution) {
						conflicts.push(conflict);
						if (stopAtConflict) return { branch, merged, resolvedBy, commit: await head(), conflicts };
						continue;
					}
					const message = `crew: run ${runId}: merge ${taskBranch}, resolved by ${resolution.id}`;
					const tree = `${this.#worktrees.branchOf(runId, resolution.id)}^{tree}`;
					const commit = (
						await git(path, ["commit-tree", tree, "-p", "HEAD", "-p", conflict.head, "-m", message])
					).trim();
					await git(path, ["reset", "--quiet", "--hard", commit]);
					resolvedBy.push(resolution.id);
				}
				merged.push(task);
			}
			return { branch, merged, resolvedBy, commit: await head(), conflicts };
		} finally {
			await gitRun(this.#root, ["worktree", "remove", "--force", path]);
		}
	}

	/**
	 * Of the orders to merge the branches of `tasks` (in dependency order, each with the tasks it
	 * must follow) that their waits allow, one that conflicts least (see `chooseMergeOrder`).
	 */
	leastConflicting(
		runId: string,
		base: string,
		tasks: readonly { readonly task: string; readonly after: readonly string[] }[],
	): Promise<MergeOrder> {
		const branches = tasks.map((t) => ({ ...t, branch: this.#worktrees.branchOf(runId, t.task) }));
		return chooseMergeOrder(this.#root, base, branches);
	}

	/** Whether `branch` holds the work of a conflicting merge: it would conflict the same way. */
	async #holdsAny(branch: string, conflicts: readonly MergeConflict[]): Promise<boolean> {
		for (const c of conflicts) {
			if ((await gitRun(this.#root, ["merge-base", "--is-ancestor", c.head, branch])).code === 0) return true;
		}
		return false;
	}

	/**
	 * Merges `taskBranch` into the worktree at `path`; on a conflict the merge is undone and
	 * described. A merge that fails without conflicting files is git's error, not a conflict.
	 */
	async #merge(path: string, task: string, taskBranch: string): Promise<MergeConflict | undefined> {
		const args = ["merge", "--no-edit", "--quiet", taskBranch];
		const result = await gitRun(path, args);
		if (result.code === 0) return undefined;
		const files = (await gitRun(path, ["diff", "--name-only", "--diff-filter=U"])).stdout.split("\n").filter(Boolean);
		const intoTree = (await git(path, ["rev-parse", "HEAD^{tree}"])).trim();
		const head = (await git(path, ["rev-parse", taskBranch])).trim();
		await gitRun(path, ["merge", "--abort"]);
		if (files.length === 0) throw gitError(path, args, result);
		return { task, branch: taskBranch, head, intoTree, files };
	}

	/**
	 * Starts the branch of resolution task `taskId` at `into`, the integration as it was when its
	 * conflict was met: the resolution is made on it, whatever `crew/<runId>` becomes meanwhile.
	 */
	async startResolution(runId: string, taskId: string, into: string): Promise<void> {
		// The task is new to the run: a branch of its name is a leftover of a runner that died
		// before the task was recorded.
		await git(this.#root, ["branch", "--force", this.#worktrees.branchOf(runId, taskId), into]);
	}

	/**
	 * Opens the integration worktree, detached at the start of resolution task `taskId`, with the
	 * merge of its conflict in progress: its files hold the conflict for an agent to resolve.
	 */
	async openResolution(
		runId: string,
		taskId: string,
		conflict: Pick<MergeConflict, "task" | "head" | "intoTree">,
	): Promise<{ path: string; into: string }> {
		const path = this.#integrationPath(runId);
		const branch = this.#worktrees.branchOf(runId, taskId);
		// An attempt whose commit was made but not recorded left the branch one merge further.
		let into = (await git(this.#root, ["rev-parse", branch])).trim();
		const treeOf = async (commit: string) => (await git(this.#root, ["rev-parse", `${commit}^{tree}`])).trim();
		if ((await treeOf(into)) !== conflict.intoTree) into = (await git(this.#root, ["rev-parse", `${into}^1`])).trim();
		if ((await treeOf(into)) !== conflict.intoTree) {
			throw new CrewError(
				ErrorCode.Conflict,
				`${branch} does not start where the conflict with ${conflict.task} was met`,
			);
		}
		if (existsSync(path)) await git(this.#root, ["worktree", "remove", "--force", path]);
		await git(this.#root, ["worktree", "add", "--quiet", "--detach", path, into]);
		await gitRun(path, ["merge", "--no-commit", "--no-ff", conflict.head]);
		return { path, into };
	}

	/** Files of `files` in the worktree at `path` that still hold a conflict marker. */
	unresolved(path: string, files: readonly string[]): string[] {
		return files.filter((file) => {
			const full = join(path, file);
			return existsSync(full) && /^(<{7} |>{7} )/m.test(readFileSync(full, "utf8"));
		});
	}

	/**
	 * Commits the resolved merge at `path` (its work tree as the agent left it) on `branch`, and
	 * describes the change since `into`.
	 */
	async commitResolution(path: string, into: string, branch: string, message: string): Promise<CommittedChange> {
		await git(path, ["add", "--all"]);
		await git(path, ["commit", "--quiet", "--no-edit", "-m", message]);
		const commit = (await git(path, ["rev-parse", "HEAD"])).trim();
		await git(this.#root, ["branch", "--force", branch, commit]);
		const stat = await git(path, ["diff", "--stat", `${into}..${commit}`]);
		const patch = await git(path, ["diff", "--no-ext-diff", "--binary", `${into}..${commit}`]);
		return { commit, stat, patch };
	}

	/** Removes the integration worktree, whatever it holds. */
	async closeResolution(runId: string): Promise<void> {
		await gitRun(this.#root, ["worktree", "remove", "--force", this.#integrationPath(runId)]);
	}

	/** The files `task`'s branch changed since `base`. */
	async changedFiles(runId: string, base: string, task: string): Promise<string[]> {
		const out = await git(this.#root, ["diff", "--name-only", base, this.#worktrees.branchOf(runId, task)]);
		return out.split("\n").filter(Boolean);
	}

	/** Whether `crew/<runId>` is already part of the branch checked out in the repository. */
	async isMerged(runId: string): Promise<boolean> {
		const branch = this.name(runId);
		return (await gitRun(this.#root, ["merge-base", "--is-ancestor", branch, "HEAD"])).code === 0;
	}

	#integrationPath(runId: string): string {
		return join(this.#dir, `${checkId("run", runId)}.integration`);
	}

	/**
	 * Of the tasks `others` (not merged themselves), those whose own commits the branches of
	 * `merged` hold, as a dependent's branch holds its dependencies' work: each with those tasks.
	 */
	async carried(
		runId: string,
		base: string,
		others: readonly string[],
		merged: readonly string[],
	): Promise<{ task: string; by: string[] }[]> {
		const found: { task: string; by: string[] }[] = [];
		for (const task of others) {
			const tip = await this.#tipOf(this.#worktrees.branchOf(runId, task));
			if (tip === undefined || tip === base) continue;
			const by: string[] = [];
			for (const m of merged) {
				const into = this.#worktrees.branchOf(runId, m);
				if ((await gitRun(this.#root, ["merge-base", "--is-ancestor", tip, into])).code === 0) by.push(m);
			}
			if (by.length > 0) found.push({ task, by });
		}
		return found;
	}

	/** The commit `crew/<runId>` is at; undefined when there is no such branch. */
	tip(runId: string): Promise<string | undefined> {
		return this.#tipOf(this.name(runId));
	}

	async #tipOf(branch: string): Promise<string | undefined> {
		const found = await gitRun(this.#root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]);
		return found.code === 0 ? found.stdout.trim() : undefined;
	}

	async #hasBranch(branch: string): Promise<boolean> {
		return (await gitRun(this.#root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`])).code === 0;
	}

	/**
	 * Merges `crew/<runId>` into the branch checked out in the repository, as the user asked and
	 * so as the user would (their author, signing and hooks): only on a clean work tree (changes
	 * under `.crew/` and untracked files do not count), and a conflict is undone and reported with
	 * its files.
	 */
	async mergeIntoCurrent(runId: string): Promise<{ branch: string; into: string; commit: string }> {
		const branch = this.name(runId);
		if (!(await this.#hasBranch(branch))) {
			throw new CrewError(
				ErrorCode.NotFound,
				`run ${runId} has no branch ${branch}: runs in worktree mode get one when they end`,
			);
		}
		const dirty = dirtyPaths(this.#root);
		if (dirty.length > 0) {
			throw new CrewError(
				ErrorCode.Conflict,
				`your work tree has changes (${dirty.slice(0, 5).join(", ")}${dirty.length > 5 ? ", …" : ""}); commit or stash them, then merge again`,
			);
		}
		const into = (await git(this.#root, ["branch", "--show-current"])).trim() || "HEAD";
		const args = ["merge", "--no-edit", branch];
		const merged = await userGitRun(this.#root, args);
		if (merged.code !== 0) {
			const files = (await gitRun(this.#root, ["diff", "--name-only", "--diff-filter=U"])).stdout.trim();
			await userGitRun(this.#root, ["merge", "--abort"]);
			if (files === "") throw gitError(this.#root, args, merged);
			throw new CrewError(ErrorCode.Conflict, `${branch} conflicts with ${into} in: ${files}; nothing was merged`);
		}
		return { branch, into, commit: (await git(this.#root, ["rev-parse", "HEAD"])).trim() };
	}
}
