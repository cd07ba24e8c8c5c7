// Binding a store to the repository it serves; runs of a store copied from elsewhere count as imported.

import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { Db } from "./database.js";

/**
 * Binds a store to the repository it serves: the first writer records the repository's real path.
 * A store found at another path (copied or moved here) keeps its runs as records: they are marked
 * as not made here (`imported_at`), so they can be viewed but are never executed from their specs,
 * and the store is bound to this repository for the runs made from now on. Returns how many runs
 * were so marked.
 */
export function claimStore(db: Db, root: string, now: string): number {
	const here = canonical(root);
	const bound = () =>
		(db.prepare("SELECT value FROM store_meta WHERE key = 'root'").get() as { value: string } | undefined)?.value;
	// Read first: a store already bound here takes no write lock from a runner that holds it.
	if (bound() === here) return 0;
	return db
		.transaction(() => {
			const was = bound();
			if (was === here) return 0;
			const marked =
				was !== undefined
					? db.prepare("UPDATE runs SET imported_at = ? WHERE imported_at IS NULL").run(now).changes
					: 0;
			db.prepare(
				"INSERT INTO store_meta (key, value) VALUES ('root', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
			).run(here);
			return marked;
		})
		.immediate();
}

function canonical(root: string): string {
	try {
		return realpathSync(root);
	} catch {
		return resolve(root);
	}
}
