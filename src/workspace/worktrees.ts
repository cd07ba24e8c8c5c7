// Git worktrees and branches of a run's tasks in worktree mode: prepared, committed, listed and cleaned up.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { CrewError, ErrorCode } from "../core/errors.js";
import { checkId } from "../core/ids.js";
import { Turns } from "../core/turns.js";
import { type Changes, type Collision, changesOf, collision, snapshot } from "./collisions.js";
import { git, gitError, gitRun, gitRunSync } from "./git.js";

/** Where a task works in worktree mode, and the commit it started from. */
export interface TaskWorkspace {
	readonly path: string;
	readonly branch: string;
	/** The commit after its dependencies were merged: the task's own changes are what follows. */
	readonly start: string;
	/** Work an earlier attempt left uncommitted (its runner died, say): kept on `branch`. */
	readonly recovered?: { readonly branch: string; readonly patch: string };
	/** The worktree the attempt it continues left, given as it is. */
	readonly continued?: true;
}

export interface TaskWorktree {
	readonly runId: string;
	readonly taskId: string;
	readonly path: string;
	readonly branch: string;
	/** It holds changes not committed yet. */
	readonly dirty: boolean;
}

export interface CommittedChange {
	/** The commit crew made of the task's changes; undefined when it changed nothing. */
	readonly commit: string | undefined;
	readonly stat: string;
	readonly patch: string;
}

/** Whether `root` is a git repository with a commit, where worktrees can start. */
export function hasCommit(root: string): boolean {
	try {
		headCommit(root);
		return true;
	} catch (error) {
		if (error instanceof CrewError && error.code === ErrorCode.InvalidInput) return false;
		throw error;
	}
}

/** The leader repository's HEAD commit: where a run's worktrees start. */
export function headCommit(root: string): string {
	const head = gitRunSync(root, ["rev-parse", "--verify", "HEAD"]);
	if (head.code === 0) return head.stdout.trim();
	throw new CrewError(
		ErrorCode.InvalidInput,
		`worktree mode needs a git repository with at least one commit at ${root}; commit first, or run without worktrees`,
	);
}

/**
 * Tracked files of the leader repository with changes, outside `.crew/`: work the worktrees would
 * not see, since they start from the last commit. Untracked files do not count.
 */
export function dirtyPaths(root: string): string[] {
	const args = ["status", "--porcelain", "--untracked-files=no"];
	const status = gitRunSync(root, args);
	if (status.code !== 0) throw gitError(root, args, status);
	return status.stdout
		.split("\n")
		.filter(Boolean)
		.map((line) => line.slice(3))
		.filter((path) => !path.startsWith(".crew/"));
}

/**
 * A ref of each task worktree's own (git keeps `refs/worktree/` per worktree, and removes them
 * with it), `<MADE_FOR><attempt>`, at the commit the attempt started from.
 */
const MADE_FOR = "refs/worktree/crew-attempt/";

/**
 * Git worktrees for the tasks of runs: `.crew/worktrees/<runId>/<taskId>` on the branch
 * `crew-tasks/<runId>/<taskId>`, both built only from validated ids. Work is never thrown away: a
 * worktree made again for a new attempt first has its changes committed and its branch kept as
 * `crew-attempts/<runId>/<taskId>/<attempt>` (or `<attempt>.2`, … when that name is taken).
 */
export class Worktrees {
	readonly #root: string;
	readonly #dir: string;
	/**
	 * Worktrees are added and removed one at a time: git reads the other worktrees' records while
	 * it adds one, and fails on a record another `git worktree add` is still writing.
	 */
	readonly #turns = new Turns();

	constructor(root: string, crewDir: string) {
		this.#root = root;
		this.#dir = join(crewDir, "worktrees");
	}

	branchOf(runId: string, taskId: string): string {
		return `crew-tasks/${checkId("run", runId)}/${checkId("task", taskId)}`;
	}

	pathOf(runId: string, taskId: string): string {
		return join(this.#dir, checkId("run", runId), checkId("task", taskId));
	}

	/**
	 * A clean worktree for an attempt, from `base` with the branches of `dependencies` (those that
	 * have one) merged in, so their changes reach this task. A conflict fails with its files. The
	 * worktree records the attempt it is for and its start; asked again for that same attempt (a
	 * dead runner's attempt, followed again), it is given back as it is, with that start. An attempt
	 * that continues attempt `continuing`'s session gets the worktree that attempt left, as it is,
	 * when it is there.
	 */
	async prepare(
		runId: string,
		taskId: string,
		attempt: number,
		base: string,
		dependencies: readonly string[],
		continuing?: number,
	): Promise<TaskWorkspace> {
		const path = this.pathOf(runId, taskId);
		const branch = this.branchOf(runId, taskId);
		const made = existsSync(path) ? await this.#madeFor(path) : undefined;
		if (made?.attempt === attempt) return { path, branch, start: made.start };
		if (made !== undefined && made.attempt === continuing) {
			await git(path, ["update-ref", `${MADE_FOR}${attempt}`, made.start]);
			return { path, branch, start: made.start, continued: true };
		}
		// A worktree without a record is one whose preparation did not finish: the attempt before.
		const before = made?.attempt ?? attempt - 1;
		let leftover: string | undefined;
		if (existsSync(path)) {
			leftover = await this.#commitAll(path, `crew: run ${runId}, task ${taskId}: work left by attempt ${before}`);
			await this.#turns.take("git", () => git(this.#root, ["worktree", "remove", "--force", path]));
		}
		let kept: string | undefined;
		if ((await gitRun(this.#root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`])).code === 0) {
			kept = await this.#keep(branch, `crew-attempts/${runId}/${taskId}/${before}`);
		}
		const recovered =
			leftover && kept
				? { branch: kept, patch: await git(this.#root, ["show", "--format=", "--binary", leftover]) }
				: undefined;
		await this.#turns.take("git", () => git(this.#root, ["worktree", "add", "--quiet", "-b", branch, path, base]));
		for (const dep of dependencies) {
			const depBranch = this.branchOf(runId, dep);
			if ((await gitRun(this.#root, ["rev-parse", "--verify", "--quiet", `refs/heads/${depBranch}`])).code !== 0)
				continue;
			const args = ["merge", "--no-edit", "--quiet", depBranch];
			const merged = await gitRun(path, args);
			if (merged.code !== 0) {
				const files = (await gitRun(path, ["diff", "--name-only", "--diff-filter=U"])).stdout.trim().split("\n");
				await gitRun(path, ["merge", "--abort"]);
				if (files.join("") === "") throw gitError(path, args, merged);
				throw new CrewError(
					ErrorCode.Conflict,
					`the changes of ${dep} (${depBranch}) conflict with ${taskId}'s other dependencies in: ${files.join(", ")}`,
				);
			}
		}
		const start = (await git(path, ["rev-parse", "HEAD"])).trim();
		await git(path, ["update-ref", `${MADE_FOR}${attempt}`, start]);
		return { path, branch, start, ...(recovered ? { recovered } : {}) };
	}

	/** The attempt the worktree at `path` was prepared for, and its start; undefined without a record. */
	async #madeFor(path: string): Promise<{ attempt: number; start: string } | undefined> {
		const refs = await git(path, ["for-each-ref", "--format=%(refname) %(objectname)", MADE_FOR]);
		const [ref, start] = refs.trim().split("\n").at(-1)?.split(" ") ?? [];
		const attempt = Number(ref?.slice(MADE_FOR.length));
		return start && Number.isSafeInteger(attempt) ? { attempt, start } : undefined;
	}

	/**
	 * Renames `branch` to `name`, or, when a branch of that name exists, to the first free one of
	 * `<name>.2`, `<name>.3`, …: a kept attempt's branch is never moved or overwritten.
	 */
	async #keep(branch: string, name: string): Promise<string> {
		for (let n = 1; ; n++) {
			const target = n === 1 ? name : `${name}.${n}`;
			const args = ["branch", "-m", branch, target];
			const moved = await gitRun(this.#root, args);
			if (moved.code === 0) return target;
			const taken = await gitRun(this.#root, ["rev-parse", "--verify", "--quiet", `refs/heads/${target}`]);
			if (taken.code !== 0) throw gitError(this.#root, args, moved);
		}
	}

	/**
	 * The work of task `taskId` as it is now: while its agent works (`working`), a snapshot of its
	 * worktree (see `snapshot`); after, its branch's tip. Undefined when it has neither here (its
	 * attempt runs on another machine, say).
	 */
	async workOf(runId: string, taskId: string, working: boolean): Promise<string | undefined> {
		const path = this.pathOf(runId, taskId);
		if (working) return existsSync(path) ? await snapshot(path) : undefined;
		const tip = await gitRun(this.#root, [
			"rev-parse",
			"--verify",
			"--quiet",
			`refs/heads/${this.branchOf(runId, taskId)}`,
		]);
		return tip.code === 0 ? tip.stdout.trim() : undefined;
	}

	/** What commit `b` changed since commit `a` (see `Changes`). */
	changes(a: string, b: string): Promise<Changes> {
		return changesOf(this.#root, a, b);
	}

	/** Whether the work of two tasks, as `workOf` gives it, would conflict when merged (see `collision`). */
	collide(a: string, b: string): Promise<Collision | undefined> {
		return collision(this.#root, a, b);
	}

	/** Removes a task's worktree whatever it holds: for one that never got past its setup. */
	async discard(runId: string, taskId: string): Promise<void> {
		await this.#turns.take("git", () =>
			gitRun(this.#root, ["worktree", "remove", "--force", this.pathOf(runId, taskId)]),
		);
	}

	/** The task worktrees crew made, of one run or all, and whether each has uncommitted changes. */
	async list(runId?: string): Promise<TaskWorktree[]> {
		const porcelain = await git(this.#root, ["worktree", "list", "--porcelain"]);
		const found: TaskWorktree[] = [];
		for (const block of porcelain.split("\n\n")) {
			const path = /^worktree (.+)$/m.exec(block)?.[1];
			if (!path?.startsWith(`${this.#dir}/`)) continue;
			const [run, task] = path.slice(this.#dir.length + 1).split("/");
			if (!run || !task || (runId !== undefined && run !== runId)) continue;
			const branch = /^branch refs\/heads\/(.+)$/m.exec(block)?.[1] ?? "(detached)";
			const dirty = existsSync(path) && (await git(path, ["status", "--porcelain"])).trim() !== "";
			found.push({ runId: run, taskId: task, path, branch, dirty });
		}
		return found;
	}

	/** The branches crew made here: runs' integration branches, task branches, kept attempts. */
	async branches(): Promise<{ branch: string; runId: string }[]> {
		const refs = ["refs/heads/crew/", "refs/heads/crew-tasks/", "refs/heads/crew-attempts/"];
		const out = await git(this.#root, ["for-each-ref", "--format=%(refname:short)", ...refs]);
		return out
			.split("\n")
			.filter((line) => line !== "")
			.map((branch) => ({ branch, runId: branch.split("/")[1] ?? "" }));
	}

	/** Deletes `branches`, which must be crew's. */
	async deleteBranches(branches: readonly string[]): Promise<void> {
		if (branches.length > 0) await git(this.#root, ["branch", "-D", ...branches]);
	}

	/**
	 * Removes a run's task worktrees. Uncommitted changes are committed to the task's branch
	 * first; a worktree whose changes cannot be committed is kept and reported, never deleted.
	 * Branches stay: they are the work.
	 */
	async cleanup(runId: string): Promise<{ removed: string[]; kept: { path: string; reason: string }[] }> {
		const removed: string[] = [];
		const kept: { path: string; reason: string }[] = [];
		for (const tree of await this.list(runId)) {
			try {
				if (tree.dirty) await this.#commitAll(tree.path, `crew: run ${runId}, task ${tree.taskId}: kept at cleanup`);
				await this.#turns.take("git", () => git(this.#root, ["worktree", "remove", tree.path]));
				removed.push(tree.path);
			} catch (error) {
				kept.push({ path: tree.path, reason: error instanceof Error ? error.message : String(error) });
			}
		}
		await this.#turns.take("git", () => gitRun(this.#root, ["worktree", "prune"]));
		return { removed, kept };
	}

	/** Commits whatever the task changed on its branch, and describes the change since it started. */
	async commit(workspace: TaskWorkspace, message: string): Promise<CommittedChange> {
		const commit = await this.#commitAll(workspace.path, message);
		const range = `${workspace.start}..HEAD`;
		const stat = await git(workspace.path, ["diff", "--stat", range]);
		const patch = await git(workspace.path, ["diff", "--no-ext-diff", "--binary", range]);
		return { commit, stat, patch };
	}

	/** Commits every change in the worktree; returns the commit, or undefined when there was none. */
	async #commitAll(path: string, message: string): Promise<string | undefined> {
		await git(path, ["add", "--all"]);
		if ((await gitRun(path, ["diff", "--cached", "--quiet"])).code === 0) return undefined;
		await git(path, ["commit", "--quiet", "-m", message]);
		return (await git(path, ["rev-parse", "HEAD"])).trim();
	}
}
