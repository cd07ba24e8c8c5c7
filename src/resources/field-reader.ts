// Typed reads of a resource file's fields that report each bad value on its line and read on.

import { parseLimit } from "../core/duration.js";
import { errorMessage } from "../core/errors.js";
import { typoOf } from "../core/near-names.js";
import { isSandboxLevel, SANDBOX_LEVELS, type SandboxLevel } from "../core/sandbox-level.js";
import { SPEC_ID } from "../core/spec-contract.js";
import { type Diagnostic, type Field, list } from "./frontmatter.js";

/**
 * Typed reads of a resource's fields that report what is wrong on the field's line into the
 * file's diagnostics, so a parser reads on and reports every problem of a file at once.
 */
export class FieldReader {
	readonly #fields: Readonly<Record<string, Field>>;
	readonly #file: string;
	readonly #diagnostics: Diagnostic[];
	readonly #prefix: string;

	/** `prefix` starts each message, e.g. `step 'fix': `. */
	constructor(fields: Readonly<Record<string, Field>>, file: string, diagnostics: Diagnostic[], prefix = "") {
		this.#fields = fields;
		this.#file = file;
		this.#diagnostics = diagnostics;
		this.#prefix = prefix;
	}

	keys(): string[] {
		return Object.keys(this.#fields);
	}

	/** The file's line of each key. */
	lines(): Record<string, number> {
		return Object.fromEntries(Object.entries(this.#fields).map(([key, field]) => [key, field.line]));
	}

	line(key: string): number | undefined {
		return this.#fields[key]?.line;
	}

	/** One value; a list where one value is expected is an error. */
	text(key: string): string | undefined {
		const value = this.#fields[key]?.value;
		if (value === undefined || typeof value === "string") return value;
		this.error(key, `${key}: expected one value, not a list`);
		return undefined;
	}

	/** A list, or undefined when the key is absent. */
	list(key: string): string[] | undefined {
		const value = this.#fields[key]?.value;
		return value === undefined ? undefined : list(value);
	}

	/** `true` or `false`; anything else is an error naming it. */
	flag(key: string): boolean | undefined {
		const value = this.text(key);
		if (value === undefined || value === "") return undefined;
		if (value === "true" || value === "false") return value === "true";
		this.error(key, `${key} '${value}': expected true or false`);
		return undefined;
	}

	/** `specStrict:`, as pi-crew reads it: true, yes or 1; false, no or 0. */
	specStrict(): { specStrict?: boolean } {
		const value = this.text("specStrict")?.toLowerCase();
		if (value === undefined || value === "") return {};
		if (["true", "yes", "1"].includes(value)) return { specStrict: true };
		if (["false", "no", "0"].includes(value)) return { specStrict: false };
		this.error("specStrict", `specStrict '${value}': expected true or false`);
		return {};
	}

	/** `specRefs:`, the ids of the specs a step is held to; a value that is no spec id is an error. */
	specRefs(): { specRefs?: readonly string[] } {
		const refs = this.list("specRefs");
		if (refs === undefined || refs.length === 0) return {};
		const bad = refs.find((ref) => !SPEC_ID.test(ref));
		if (bad !== undefined) {
			this.error("specRefs", `specRefs '${bad}': expected spec ids (crew spec list), separated by commas`);
			return {};
		}
		return { specRefs: refs };
	}

	/** `sandbox:`, one of the levels; anything else is an error naming it. */
	sandbox(): { sandbox?: SandboxLevel } {
		const value = this.text("sandbox");
		if (value === undefined || value === "") return {};
		if (isSandboxLevel(value)) return { sandbox: value };
		this.error("sandbox", `sandbox '${value}': expected one of ${SANDBOX_LEVELS.join(", ")}`);
		return {};
	}

	/** An integer of at least `min`; anything else is an error naming it. */
	integer(key: string, min: number): number | undefined {
		const value = this.text(key);
		if (value === undefined || value === "") return undefined;
		const n = Number(value);
		if (/^\s*-?\d+\s*$/.test(value) && Number.isInteger(n) && n >= min) return n;
		this.error(key, `${key} '${value}': expected an integer >= ${min}`);
		return undefined;
	}

	/**
	 * `timeout:` and `stallTimeout:` in ms, with `askTimeout:` where `ask` is true; a value that is
	 * not 0 or a duration is an error naming it.
	 */
	limits(ask = false): { timeoutMs?: number; stallTimeoutMs?: number; askTimeoutMs?: number } {
		const limits: { timeoutMs?: number; stallTimeoutMs?: number; askTimeoutMs?: number } = {};
		const keys = [
			["timeout", "timeoutMs"],
			["stallTimeout", "stallTimeoutMs"],
			...(ask ? ([["askTimeout", "askTimeoutMs"]] as const) : []),
		] as const;
		for (const [key, field] of keys) {
			const value = this.text(key);
			if (value === undefined || value === "") continue;
			try {
				limits[field] = parseLimit(key, value);
			} catch (error) {
				this.error(key, errorMessage(error));
			}
		}
		return limits;
	}

	/** Every field as written, a list as its items joined by `, `. */
	flat(): Record<string, string> {
		const flat: Record<string, string> = {};
		for (const [key, { value }] of Object.entries(this.#fields)) {
			flat[key] = typeof value === "string" ? value : value.join(", ");
		}
		return flat;
	}

	/**
	 * Unknown keys: one edit from a known key is a typo and an error naming the key meant (a typo
	 * silently changes what runs); any other is kept with a warning, since pi-crew files carry
	 * fields of their own.
	 */
	checkKeys(known: ReadonlySet<string>, what: string): void {
		for (const key of this.keys()) {
			if (known.has(key)) continue;
			const meant = typoOf(key, known);
			if (meant !== undefined) this.error(key, `unknown ${what} '${key}'; did you mean \`${meant}\`?`);
			else this.warning(key, `unknown ${what} '${key}' kept`);
		}
	}

	error(key: string, message: string): void {
		this.#push("error", key, message);
	}

	warning(key: string, message: string): void {
		this.#push("warning", key, message);
	}

	#push(level: Diagnostic["level"], key: string, message: string): void {
		const line = this.line(key);
		this.#diagnostics.push({
			level,
			file: this.#file,
			...(line !== undefined ? { line } : {}),
			message: `${this.#prefix}${message}`,
		});
	}
}
