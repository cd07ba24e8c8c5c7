// Where a project's specs are kept: minted by the user in pi's agent folder, or written by tasks in the repository.

import { createHash } from "node:crypto";
import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	realpathSync,
	renameSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { piAgentFolder } from "../config/resource-layers.js";
import { CrewError, ErrorCode } from "../core/errors.js";
import { parseJsonText } from "../core/json-text.js";
import { SPEC_ID } from "../core/spec-contract.js";
import { type SpecRecord, specDigest, specRecord } from "./spec-record.js";

/** A spec as a store holds it: from which store, whether the user minted it, and its file. */
export interface StoredSpec {
	readonly record: SpecRecord;
	/** `user`: imported by the user; `workspace`: written in the repository, by a task or anyone. */
	readonly store: "user" | "workspace";
	/** Whether its marker holds its digest: only a spec the user imported, unchanged since, is. */
	readonly minted: boolean;
	readonly file: string;
}

/**
 * A project's specs, in pi-crew's two stores, read and written as pi-crew does:
 * - the user's, `<pi's agent folder>/specs/<project>/<id>.json`, beside each a marker
 *   `<id>.trusted` holding the record's digest, written only when the user imports a spec;
 * - the repository's, `.crew/state/specs/<id>.json`, which tasks may write and which mints nothing.
 * The user's spec of an id wins over the repository's.
 */
export class SpecStore {
	readonly userDir: string;
	readonly workspaceDir: string;

	constructor(projectRoot: string, crewDir: string, env: NodeJS.ProcessEnv = process.env) {
		this.userDir = join(piAgentFolder(env), "specs", projectSlug(projectRoot));
		this.workspaceDir = join(crewDir, "state", "specs");
	}

	/**
	 * Imports `record` as the user's own, `from` the file named: its source says so, it is marked
	 * trusted, and its marker binds it to its digest. Replaces a spec of the same id.
	 */
	mint(record: SpecRecord, from: string, by: string): StoredSpec {
		const minted = specRecord({ ...record, source: { kind: "manual", by, from }, trusted: true }, from);
		mkdirSync(this.userDir, { recursive: true, mode: 0o700 });
		const file = join(this.userDir, `${minted.id}.json`);
		writeAtomically(file, `${JSON.stringify(minted, null, 2)}\n`);
		writeAtomically(join(this.userDir, `${minted.id}.trusted`), `${specDigest(minted)}\n`);
		return { record: minted, store: "user", minted: true, file };
	}

	/** The spec of `id`, the user's first; undefined when neither store has one. */
	find(id: string): StoredSpec | undefined {
		checkSpecId(id);
		return this.#read("user", id) ?? this.#read("workspace", id);
	}

	/** Every spec of the project, by id; a spec whose file is not a SpecRecord is listed in `broken`. */
	list(): { specs: StoredSpec[]; broken: { file: string; error: string }[] } {
		const specs: StoredSpec[] = [];
		const broken: { file: string; error: string }[] = [];
		const ids = new Set([...idsIn(this.userDir), ...idsIn(this.workspaceDir)]);
		for (const id of [...ids].sort()) {
			try {
				const found = this.find(id);
				if (found) specs.push(found);
			} catch (error) {
				broken.push({ file: id, error: (error as Error).message });
			}
		}
		return { specs, broken };
	}

	/** Removes the user's spec of `id` and its marker; false when the user has none. */
	remove(id: string): boolean {
		checkSpecId(id);
		const file = join(this.userDir, `${id}.json`);
		if (!existsSync(file)) return false;
		rmSync(join(this.userDir, `${id}.trusted`), { force: true });
		rmSync(file);
		return true;
	}

	#read(store: StoredSpec["store"], id: string): StoredSpec | undefined {
		const dir = store === "user" ? this.userDir : this.workspaceDir;
		const file = join(dir, `${id}.json`);
		if (!existsSync(file)) return undefined;
		const record = specRecord(parseJsonText(readFileSync(file, "utf8"), file), file);
		if (record.id !== id) throw new CrewError(ErrorCode.InvalidInput, `${file} holds spec '${record.id}', not '${id}'`);
		// Only the user's store mints: a marker a task wrote in the repository counts for nothing.
		const minted = store === "user" && markerOf(join(dir, `${id}.trusted`)) === specDigest(record);
		return { record, store, minted, file };
	}
}

/** The folder of a project in the user's store: the first 16 hex of the sha-256 of its real path. */
function projectSlug(root: string): string {
	const absolute = resolve(root);
	let real = absolute;
	try {
		real = realpathSync(absolute);
	} catch {
		// A path that cannot be resolved names its folder as given.
	}
	return createHash("sha256").update(real, "utf8").digest("hex").slice(0, 16);
}

function checkSpecId(id: string): void {
	if (!SPEC_ID.test(id)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid spec id ${JSON.stringify(id)}: expected a letter or digit, then up to 127 of [A-Za-z0-9._-]`,
		);
	}
}

function idsIn(dir: string): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((name) => name.endsWith(".json"))
		.map((name) => name.slice(0, -".json".length))
		.filter((id) => SPEC_ID.test(id));
}

function markerOf(file: string): string | undefined {
	try {
		return readFileSync(file, "utf8").trim();
	} catch {
		return undefined;
	}
}

/** Writes `text` to `file` through a file beside it, readable by its owner only. */
function writeAtomically(file: string, text: string): void {
	const temporary = `${file}.${process.pid}.tmp`;
	writeFileSync(temporary, text, { mode: 0o600 });
	renameSync(temporary, file);
}
