// The user's record of trusted projects, whose own commands crew may run.

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { userConfigDir } from "./resource-layers.js";

/**
 * The projects whose own commands (command agents, verify commands) the user lets crew run,
 * recorded in the user's config folder, one file per project, named by a hash of its real path:
 * a repository cannot trust itself, and two processes trusting at once do not race.
 */
export class TrustStore {
	readonly #dir: string;

	constructor(env: NodeJS.ProcessEnv = process.env) {
		this.#dir = join(userConfigDir(env), "trusted");
	}

	isTrusted(root: string): boolean {
		try {
			return readRecord(this.#file(root))?.path === canonical(root);
		} catch {
			return false;
		}
	}

	trust(root: string, now = new Date()): void {
		mkdirSync(this.#dir, { recursive: true });
		const record = { path: canonical(root), trustedAt: now.toISOString() };
		writeFileSync(this.#file(root), `${JSON.stringify(record)}\n`);
	}

	/** Returns whether the project was trusted. */
	revoke(root: string): boolean {
		const was = this.isTrusted(root);
		rmSync(this.#file(root), { force: true });
		return was;
	}

	list(): { path: string; trustedAt: string }[] {
		let names: string[];
		try {
			names = readdirSync(this.#dir).filter((name) => name.endsWith(".json"));
		} catch {
			return [];
		}
		return names
			.map((name) => readRecord(join(this.#dir, name)))
			.filter((record) => record !== undefined)
			.sort((a, b) => a.path.localeCompare(b.path));
	}

	#file(root: string): string {
		return join(this.#dir, `${createHash("sha256").update(canonical(root)).digest("hex").slice(0, 32)}.json`);
	}
}

function canonical(root: string): string {
	try {
		return realpathSync(root);
	} catch {
		return resolve(root);
	}
}

function readRecord(file: string): { path: string; trustedAt: string } | undefined {
	try {
		const record = JSON.parse(readFileSync(file, "utf8"));
		return typeof record?.path === "string"
			? { path: record.path, trustedAt: String(record.trustedAt ?? "") }
			: undefined;
	} catch {
		return undefined;
	}
}
