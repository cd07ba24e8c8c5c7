// Artifact files of runs: written, read and hashed inside each run's own folder, never through a link.

import type { Hash } from "node:crypto";
import {
	closeSync,
	constants,
	createReadStream,
	mkdirSync,
	openSync,
	readFileSync,
	realpathSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { ARTIFACT_NAME_RULE, isArtifactName } from "../core/artifact-names.js";
import { CrewError, ErrorCode } from "../core/errors.js";
import { checkId } from "../core/ids.js";
import type { ArtifactRecord } from "../core/records.js";
import { redact } from "../core/redact.js";

/**
 * A SHA-256 hash. node:crypto is loaded by the first write, not at import: loading it costs a
 * few ms of every start, and the commands that only read (crew status, events, ...) never hash.
 */
function sha256(): Hash {
	const crypto = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
	return crypto.createHash("sha256");
}

/** Open flags that refuse to go through a link at the file itself. */
const WRITE_NO_FOLLOW = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
const READ_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;

/**
 * Artifact files of runs, under `<root>/<runId>/`. Every name is a relative path of safe segments
 * and every resolved path is checked to stay inside its run's folder.
 */
export class ArtifactFiles {
	readonly root: string;
	readonly #now: () => number;

	constructor(root: string, options: { now?: () => number } = {}) {
		this.root = resolve(root);
		this.#now = options.now ?? Date.now;
	}

	runDir(runId: string): string {
		return join(this.root, checkId("run", runId));
	}

	/** The absolute path of artifact `name` of run `runId`; throws on any name that could escape. */
	path(runId: string, name: string): string {
		const segments = name.split("/");
		if (!isArtifactName(name)) {
			throw new CrewError(
				ErrorCode.ArtifactPath,
				`invalid artifact name ${JSON.stringify(name)}: expected ${ARTIFACT_NAME_RULE}`,
			);
		}
		const dir = this.runDir(runId);
		const full = resolve(dir, ...segments);
		if (!full.startsWith(dir + sep)) {
			throw new CrewError(ErrorCode.ArtifactPath, `artifact ${JSON.stringify(name)} would leave ${dir}`);
		}
		return full;
	}

	/**
	 * Writes an artifact and describes it; text is stored with secrets redacted. Its folder must be
	 * a real folder inside the run's (no link leading elsewhere), and the file is not written
	 * through a link.
	 */
	write(runId: string, taskId: string | null, name: string, kind: string, given: string | Buffer): ArtifactRecord {
		const full = this.path(runId, name);
		const content = typeof given === "string" ? redact(given) : given;
		mkdirSync(dirname(full), { recursive: true });
		this.#checkInside(runId, dirname(full), name);
		const fd = openSync(full, WRITE_NO_FOLLOW, 0o644);
		try {
			writeFileSync(fd, content);
		} finally {
			closeSync(fd);
		}
		const bytes = typeof content === "string" ? Buffer.from(content) : content;
		return {
			path: name,
			taskId,
			kind,
			size: bytes.length,
			sha256: sha256().update(bytes).digest("hex"),
			createdAt: new Date(this.#now()).toISOString(),
		};
	}

	/** Indexes a file a worker wrote itself, hashing it as a stream. */
	async describe(runId: string, taskId: string | null, name: string, kind: string): Promise<ArtifactRecord> {
		const full = this.path(runId, name);
		const hash = sha256();
		for await (const chunk of createReadStream(full)) hash.update(chunk as Buffer);
		return {
			path: name,
			taskId,
			kind,
			size: statSync(full).size,
			sha256: hash.digest("hex"),
			createdAt: new Date(this.#now()).toISOString(),
		};
	}

	/** An artifact's text; a link, or a folder leading out of the run's, is refused. */
	read(runId: string, name: string): string {
		const full = this.path(runId, name);
		this.#checkInside(runId, dirname(full), name);
		let fd: number;
		try {
			fd = openSync(full, READ_NO_FOLLOW);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ELOOP") {
				throw new CrewError(
					ErrorCode.ArtifactPath,
					`artifact ${JSON.stringify(name)} of run ${runId} is a link; crew does not follow links in run folders`,
				);
			}
			throw error;
		}
		try {
			return readFileSync(fd, "utf8");
		} finally {
			closeSync(fd);
		}
	}

	/** Throws unless `dir`, links resolved, is the run's folder or inside it. */
	#checkInside(runId: string, dir: string, name: string): void {
		const runDir = join(realpathSync(this.root), runId);
		let real: string;
		try {
			real = realpathSync(dir);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
			throw error;
		}
		if (real !== runDir && !real.startsWith(runDir + sep)) {
			throw new CrewError(
				ErrorCode.ArtifactPath,
				`artifact ${JSON.stringify(name)} of run ${runId} leads out of the run's folder (to ${real}); crew does not follow links in run folders`,
			);
		}
	}

	/** Deletes a run's folder and everything in it; links in it are removed, never followed. */
	remove(runId: string): void {
		rmSync(this.runDir(runId), { recursive: true, force: true });
	}

	/** The artifact's path relative to `base`, for showing to people and agents. */
	display(runId: string, name: string, base: string): string {
		return relative(base, this.path(runId, name));
	}
}
