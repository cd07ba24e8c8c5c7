// What tasks leave in a workspace for the user's git to run later, looked for when the last attempt there ends.

import type { SetAside } from "../../core/records.js";
import { type GitFolder, gitFolders, type Listing, madeSince } from "./git-folders.js";
import { setAside } from "./set-aside.js";
import { type SubmoduleState, submoduleState, submodulesChanged } from "./submodule-changes.js";

/** What the attempts that worked in a workspace left there, found when the last of them ended. */
export interface Left {
	/** The git folders they made, moved out of the workspace. */
	readonly setAside: readonly SetAside[];
	/** The submodules they added or changed, which crew refuses from a confined attempt. */
	readonly submodules: readonly string[];
	/** Whether other attempts worked in the workspace at the same time, so that any of them may have left it. */
	readonly shared: boolean;
}

/** One attempt's stay in a workspace: the git folders there before it (or before those beside it), and its leaving. */
export interface Stay {
	/** The git folders below the workspace's root before the first of the attempts there now began. */
	readonly before: readonly GitFolder[];
	/** Ends the attempt's stay; when it is the last there, looks for what they left and sets it aside into `into`. */
	leave(into: string): Promise<Left>;
}

interface Occupancy {
	attempts: number;
	overlapped: boolean;
	readonly before: readonly GitFolder[];
	readonly walked: Walked;
	readonly submodules: SubmoduleState | undefined;
}

/** A walk's listing of a workspace and when the walk began, for the next walk there to read less. */
interface Walked {
	readonly listing: Listing;
	readonly at: number;
}

/** Workspaces whose last listing a watch keeps: a shared checkout's, and the worktrees of the tasks running. */
const KEPT_LISTINGS = 16;

/**
 * A runner's watch over the workspaces its attempts write. Attempts that share a workspace (a
 * shared-mode run's parallel tasks) are looked after together: what they left is looked for when
 * the last of them ends, never while one of them still works (a scaffolder's `git init` then
 * `git commit` must not lose its git folder between the two), against the workspace as it was
 * when the first began.
 */
export class GitWatch {
	readonly #occupied = new Map<string, Occupancy>();
	readonly #listings = new Map<string, Walked>();
	readonly #now: () => number;

	/** `now`: the clock the walks are timed by, in ms since 1970. */
	constructor(now: () => number = Date.now) {
		this.#now = now;
	}

	/**
	 * Begins an attempt's stay in `workspace`. With `submodules`, its submodules are compared at the
	 * end too: for confined attempts, whose submodule changes are refused.
	 */
	async enter(workspace: string, submodules: boolean): Promise<Stay> {
		const state = submodules ? await submoduleState(workspace) : undefined;
		let occupancy = this.#occupied.get(workspace);
		if (occupancy) {
			occupancy.attempts += 1;
			occupancy.overlapped = true;
		} else {
			const { found, walked } = this.#walk(workspace, this.#listings.get(workspace));
			occupancy = { attempts: 1, overlapped: false, before: found, walked, submodules: state };
			this.#occupied.set(workspace, occupancy);
		}
		const entered = occupancy;
		let left = false;
		return {
			before: entered.before,
			leave: async (into) => {
				if (left) return { setAside: [], submodules: [], shared: entered.overlapped };
				left = true;
				entered.attempts -= 1;
				if (entered.attempts > 0) return { setAside: [], submodules: [], shared: true };
				this.#occupied.delete(workspace);
				const { found } = this.#walk(workspace, entered.walked);
				const made = madeSince(entered.before, found);
				const aside = setAside(workspace, made, into);
				const changed = entered.submodules ? await submodulesChanged(workspace, entered.submodules) : [];
				return { setAside: aside, submodules: changed, shared: entered.overlapped };
			},
		};
	}

	/** The git folders of `workspace`, read anew where they changed since `earlier`; its listing is kept for the next walk. */
	#walk(workspace: string, earlier: Walked | undefined): { found: GitFolder[]; walked: Walked } {
		const at = this.#now();
		const { found, listing } = gitFolders(workspace, earlier);
		const walked = { listing, at };
		this.#listings.delete(workspace);
		this.#listings.set(workspace, walked);
		for (const oldest of this.#listings.keys()) {
			if (this.#listings.size <= KEPT_LISTINGS) break;
			this.#listings.delete(oldest);
		}
		return { found, walked };
	}
}
