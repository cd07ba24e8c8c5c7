// A worker's checkouts of runs' repositories, and the binary patches that carry a task's work to and from it.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { CrewError, ErrorCode } from "../core/errors.js";
import { Turns } from "../core/turns.js";
import { git, gitRun } from "./git.js";

/** Where a task's workspace comes from when it is made on another machine. */
export interface CheckoutSource {
	/** A git URL or path the worker can fetch the run's base commit from. */
	readonly repository: string;
	readonly base: string;
	/** The task's starting changes over `base` (its dependencies' work), as a binary patch; may be empty. */
	readonly start: string;
}

/**
 * Everything a work tree holds over `commit`, uncommitted and untracked included, as a binary
 * patch: a task's starting state over the run's base, to send to a worker, or what the task
 * changed in a checkout, to send back. Ignored files are not part of it.
 */
export async function changesSince(path: string, commit: string): Promise<string> {
	await git(path, ["add", "--all"]);
	return git(path, ["diff", "--no-ext-diff", "--cached", "--binary", commit]);
}

/** Applies changes made elsewhere to a work tree that holds what they were made over, files and index. */
export async function applyChanges(path: string, patch: string): Promise<void> {
	if (patch === "") return;
	await git(path, ["apply", "--binary", "--index", "--whitespace=nowarn", "-"], patch);
}

/**
 * A worker's checkouts of runs' repositories: one bare copy per repository under `dir`, fetched
 * once per base commit, and a detached worktree of it per attempt, removed when the attempt ends.
 * Fetches and worktree changes of one copy are made one at a time.
 */
export class Checkouts {
	readonly #dir: string;
	readonly #turns = new Turns();

	constructor(dir: string) {
		this.#dir = dir;
	}

	/**
	 * A worktree at `path` with the source's base commit and its starting changes committed on
	 * top: the changes made there afterwards are the task's. A base the repository does not have
	 * is an error naming both.
	 */
	async prepare(source: CheckoutSource, path: string): Promise<void> {
		const copy = this.#copyOf(source.repository);
		await this.#turns.take(copy, async () => {
			if (!existsSync(copy)) {
				mkdirSync(copy, { recursive: true });
				await git(copy, ["init", "--quiet", "--bare"]);
			}
			if ((await gitRun(copy, ["cat-file", "-e", `${source.base}^{commit}`])).code !== 0) {
				const fetched = await gitRun(copy, [
					"fetch",
					"--quiet",
					"--no-tags",
					source.repository,
					`${source.base}:refs/crew/bases/${source.base}`,
				]);
				if (fetched.code !== 0) {
					const said = fetched.stderr.trim().split("\n").slice(-2).join("; ");
					throw new CrewError(
						ErrorCode.Runtime,
						`cannot fetch the run's base commit ${source.base} from ${source.repository}: ${said}`,
					);
				}
			}
			await git(copy, ["worktree", "add", "--quiet", "--detach", path, source.base]);
		});
		if (source.start === "") return;
		await applyChanges(path, source.start);
		await git(path, ["commit", "--quiet", "-m", "crew: the task's starting state"]);
	}

	/** Removes an attempt's worktree from its copy's records; its folder goes with it. */
	async remove(repository: string, path: string): Promise<void> {
		const copy = this.#copyOf(repository);
		await this.#turns.take(copy, () => gitRun(copy, ["worktree", "remove", "--force", path]));
	}

	/** Forgets the worktrees of every copy whose folders are gone: those of a worker that died. */
	async prune(): Promise<void> {
		if (!existsSync(this.#dir)) return;
		for (const name of readdirSync(this.#dir)) {
			const copy = join(this.#dir, name);
			await this.#turns.take(copy, () => gitRun(copy, ["worktree", "prune"]));
		}
	}

	#copyOf(repository: string): string {
		return join(this.#dir, `${createHash("sha256").update(repository).digest("hex").slice(0, 16)}.git`);
	}
}
