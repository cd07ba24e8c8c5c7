// `ReadConnection`: the read-only connection to a project's store that its readers share.

import type { Project } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { type Db, openReader } from "../../store/database.js";
import { RunQueries } from "../../store/run-queries.js";

/**
 * A read-only connection to a project's store, so readers never block a runner and always see a
 * committed state. Before the store exists there is none: `db` and `queries` are null.
 */
export class ReadConnection {
	readonly project: Project;
	readonly db: Db | null;
	readonly queries: RunQueries | null;

	constructor(project: Project) {
		this.project = project;
		this.db = openReader(project.dbFile);
		this.queries = this.db ? new RunQueries(this.db) : null;
	}

	close(): void {
		this.db?.close();
	}

	/** The store's run queries; throws `NotFound` before the store exists. */
	runQueries(): RunQueries {
		if (!this.queries) throw new CrewError(ErrorCode.NotFound, `no runs yet in ${this.project.root}`);
		return this.queries;
	}
}
