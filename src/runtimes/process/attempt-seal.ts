// Attempt tokens: the HMAC that proves, from another process, that crew started an attempt's processes.

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { userConfigDir } from "../../config/resource-layers.js";
import { CrewError, ErrorCode } from "../../core/errors.js";

/** The variable that carries an attempt's token in its processes' environment. */
export const ATTEMPT_TOKEN = "CREW_ATTEMPT_TOKEN";

/** The variables a token is made over: which run, task and attempt a process works for, and where. */
const SEALED = ["CREW_RUN_ID", "CREW_TASK_ID", "CREW_ATTEMPT", "CREW_PROMPT_FILE"] as const;

/**
 * Marks the processes of each attempt so that crew can prove, later and from another process,
 * that it started them: a token made at spawn, `<nonce>.<HMAC-SHA256 of the sealed variables and
 * the nonce>`, under a key kept in the user's config folder (`attempt.key`, mode 0600), which no
 * repository, store or bundle can write. A process whose environment carries a token that checks
 * out was started by crew, for the run, task and prompt file its variables name; an attempt row
 * cannot make one (it holds no token, and nothing taken from a store is used to choose what to
 * signal), nor can a process that merely sets `CREW_RUN_ID`.
 */
export class AttemptSeal {
	readonly #keyFile: string;
	#key: Buffer | undefined;

	/** `keyFile` defaults to `attempt.key` in the user's config folder; it is made on first use. */
	constructor(options: { keyFile?: string } = {}) {
		this.#keyFile = options.keyFile ?? join(userConfigDir(), "attempt.key");
	}

	/** A fresh token for a process whose environment holds `variables` (crew's, see `crewVariables`). */
	token(variables: Readonly<Record<string, string>>): string {
		const nonce = randomBytes(16).toString("hex");
		return `${nonce}.${this.#mac(variables, nonce)}`;
	}

	/** Whether `environment` carries a token that this seal made for the variables beside it. */
	proves(environment: Readonly<Record<string, string>>): boolean {
		const [nonce, mac, ...rest] = (environment[ATTEMPT_TOKEN] ?? "").split(".");
		if (!nonce || !mac || rest.length > 0 || !/^[0-9a-f]{32}$/.test(nonce) || !/^[0-9a-f]{64}$/.test(mac)) return false;
		return timingSafeEqual(Buffer.from(mac, "hex"), Buffer.from(this.#mac(environment, nonce), "hex"));
	}

	#mac(variables: Readonly<Record<string, string>>, nonce: string): string {
		const text = [...SEALED.map((name) => `${name}=${variables[name] ?? ""}`), nonce].join("\0");
		return createHmac("sha256", this.#loadKey()).update(text).digest("hex");
	}

	/**
	 * The key, made once per user: written beside its final name and linked there, so processes
	 * making it at the same time all end up with the one that won.
	 */
	#loadKey(): Buffer {
		if (this.#key) return this.#key;
		try {
			this.#key = this.#read();
			return this.#key;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
		}
		mkdirSync(dirname(this.#keyFile), { recursive: true, mode: 0o700 });
		const draft = `${this.#keyFile}.${process.pid}.${randomBytes(4).toString("hex")}`;
		writeFileSync(draft, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
		try {
			linkSync(draft, this.#keyFile);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		} finally {
			rmSync(draft, { force: true });
		}
		this.#key = this.#read();
		return this.#key;
	}

	#read(): Buffer {
		const text = readFileSync(this.#keyFile, "utf8").trim();
		if (!/^[0-9a-f]{64}$/.test(text)) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`${this.#keyFile} is not a crew attempt key (64 hex digits): remove it and crew makes a new one`,
			);
		}
		return Buffer.from(text, "hex");
	}
}
