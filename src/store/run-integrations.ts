// The store's record of how a run's branches come together: collisions foreseen while tasks work, and the integration.

import type { Statement } from "better-sqlite3";
import type { ForeseenCollision } from "../core/records.js";
import type { IntegrationRecord } from "../core/types.js";
import type { Db } from "./database.js";
import type { Lease } from "./lease.js";
import type { StoreWrites } from "./task-messages.js";

/** A run's integration and the collisions foreseen before it, each written by the run's runner under its lease. */
export class RunIntegrations {
	readonly #w: StoreWrites;
	readonly #integration: Statement<[string, string]>;
	readonly #foresee: Statement<[string, string]>;

	constructor(db: Db, writes: StoreWrites) {
		this.#w = writes;
		this.#integration = db.prepare("UPDATE runs SET integration = ? WHERE id = ?");
		this.#foresee = db.prepare(
			"UPDATE runs SET foreseen = json_insert(coalesce(foreseen, '[]'), '$[#]', json(?)) WHERE id = ?",
		);
	}

	/**
	 * Records how the run's branches were integrated, with an `integration.<status>` event naming
	 * the first task whose merge conflicted (if one did).
	 */
	record(lease: Lease, record: IntegrationRecord): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			this.#integration.run(JSON.stringify(record), lease.runId);
			this.#w.event(lease.runId, `integration.${record.status}`, record.conflicts[0]?.task ?? null, { ...record });
		});
	}

	/** Records a collision foreseen between two tasks' changes, on the run and as an `integration.predicted` event. */
	foreseen(lease: Lease, collision: Omit<ForeseenCollision, "at">): void {
		this.#w.write(() => {
			this.#w.fence(lease);
			const foreseen: ForeseenCollision = { ...collision, at: this.#w.time() };
			this.#foresee.run(JSON.stringify(foreseen), lease.runId);
			this.#w.event(lease.runId, "integration.predicted", null, { ...collision });
		});
	}
}
