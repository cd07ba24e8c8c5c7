// Specs frozen for tasks by id: each read once from a repository's stores, as a snapshot or the reason there is none.

import { projectAt } from "../config/project.js";
import { errorMessage } from "../core/errors.js";
import type { SpecSnapshot } from "../core/spec-contract.js";
import { specSnapshot } from "./spec-record.js";
import { SpecStore } from "./spec-store.js";

/**
 * The specs of the repository at `cwd`, frozen as tasks name them: a snapshot (trusted when the
 * user imported it, unchanged since), or why there is none. Each id is read once, so every task
 * that names it is given the same snapshot.
 */
export class SpecFreezer {
	readonly #store: SpecStore;
	readonly #frozen = new Map<string, SpecSnapshot | string>();

	constructor(cwd: string) {
		const project = projectAt(cwd);
		this.#store = new SpecStore(project.root, project.crewDir);
	}

	freeze(id: string): SpecSnapshot | string {
		let found = this.#frozen.get(id);
		if (found === undefined) {
			try {
				const stored = this.#store.find(id);
				found = stored
					? specSnapshot(stored.record, stored.minted)
					: "it is not among this repository's specs (crew spec list)";
			} catch (error) {
				found = errorMessage(error);
			}
			this.#frozen.set(id, found);
		}
		return found;
	}
}
