// Redaction of secrets (API keys, tokens, passwords, private keys) from everything crew stores.

import { replaceJwts } from "./jwt-scan.js";

/** What a redacted secret is replaced by; its class says what was there. */
export function marker(kind: string): string {
	return `[REDACTED:${kind}]`;
}

/**
 * Words that make a setting's value a secret in `name=value`, `name: value` and `"name": "value"`;
 * the name may carry more before the word (`DB_PASSWORD`, `x-auth`).
 *
 * Every pattern below runs in time linear in its input: each starts on a fixed text (a prefix, a
 * secret word, `://`) rather than on every character, a repeated class is followed by a character
 * it cannot hold, and where a pattern looks back over a run, runs of that kind do not overlap.
 */
const SECRET_WORDS =
	"(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|auth)";
/** A name inside quotes: the quote before it is where it starts. */
const QUOTED_SECRET_NAME = `(?:[A-Za-z0-9_.-]*?${SECRET_WORDS})`;

/** Values of secret-named settings that are type names or empty values, not secrets (`password: string`). */
const TYPE_WORDS =
	"string|number|boolean|bool|str|int|any|unknown|object|bytes|null|undefined|none|nil|true|false|required|optional";
/** How a reference to a secret starts, not the secret: `$TOKEN`, `${…}`, `process.env.KEY`, `<key>`. */
const REFERENCE = "process\\.env\\b|os\\.environ\\b|[$%<{(*[]";

/**
 * Values of secret-named settings that are not secrets: type names (`password: string`),
 * references (`$TOKEN`, `${…}`, `process.env.KEY`), placeholders and markers.
 */
const NOT_A_SECRET = new RegExp(`^(?:${TYPE_WORDS}|(?:${REFERENCE}).*)$`, "i");
/** The characters of an unquoted setting's value. */
const VALUE_CHAR = `[^\\s"'\\\\,;]`;

interface PatternClass {
	readonly kind: string;
	readonly pattern: RegExp;
	readonly keep?: boolean;
	readonly guarded?: boolean;
}

/**
 * Secret classes, most specific first, so a GitHub token inside `TOKEN=…` is named as GitHub's.
 * Each pattern matches the secret itself, or (`keep`) a prefix to keep and the secret after it;
 * a kept match whose secret is `NOT_A_SECRET` stays, unless the pattern (`guarded`) refuses such
 * values itself, which lets the replacement be a plain string (much faster on long texts).
 */
const CLASSES: readonly (PatternClass | { readonly kind: string; readonly replaceAll: typeof replaceJwts })[] = [
	{
		kind: "private-key",
		pattern:
			/-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
	},
	{ kind: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
	{ kind: "openai-key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
	{ kind: "google-key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
	{ kind: "github-token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
	{ kind: "aws-access-key", pattern: /\b(?:AKIA|ASIA|AROA|AIDA)[0-9A-Z]{16}\b/g },
	{ kind: "slack-token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
	{ kind: "slack-webhook", pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g },
	{ kind: "jwt", replaceAll: replaceJwts },
	{ kind: "bearer", pattern: /(\b(?:Bearer|Token)\s+)([A-Za-z0-9._~+/-]{16,}=*)/gi, keep: true },
	{
		kind: "url-password",
		pattern: /(:\/\/(?<=\b[a-z][a-z0-9+.-]*:\/\/)[^\s:/@]+:)([^\s@/]{3,})(?=@)/gi,
		keep: true,
	},
	{
		kind: "secret",
		pattern: new RegExp(`("${QUOTED_SECRET_NAME}"\\s*:\\s*")((?:[^"\\\\]|\\\\.){3,})(?=")`, "gi"),
		keep: true,
	},
	{
		kind: "secret",
		pattern: new RegExp(`(${SECRET_WORDS}\\s*[=:]\\s*(["']))((?:(?!\\2).){3,}?)(?=\\2)`, "gi"),
		keep: true,
	},
	{
		kind: "secret",
		pattern: new RegExp(
			`(${SECRET_WORDS}\\s*[=:]\\s*)(?!(?:${TYPE_WORDS})(?!${VALUE_CHAR})|${REFERENCE})(${VALUE_CHAR}{3,})`,
			"gi",
		),
		keep: true,
		guarded: true,
	},
];

/**
 * `text` with secrets replaced by `[REDACTED:<class>]`: provider API keys (Anthropic, OpenAI,
 * Google), GitHub, AWS and Slack tokens, Slack webhooks, JWTs, bearer tokens, private keys,
 * passwords in URLs, and the values of secret-named settings (`API_KEY=…`, `"password": "…"`).
 * Applied to everything crew stores, before it is stored.
 */
export function redact(text: string): string {
	let out = text;
	for (const secretClass of CLASSES) {
		out =
			"replaceAll" in secretClass
				? secretClass.replaceAll(out, marker(secretClass.kind))
				: redactClass(out, secretClass);
	}
	return out;
}

/**
 * `text` with the secrets of one class replaced. Matches that need a look are walked with `exec`
 * rather than given to `String.replace` with a function or iterated by `matchAll`, both many
 * times slower on long texts in V8. The pattern is copied so the shared one's `lastIndex` never changes.
 */
function redactClass(text: string, { kind, pattern, keep, guarded }: PatternClass): string {
	if (keep && guarded) return text.replace(pattern, `$1${marker(kind)}`);
	const scan = new RegExp(pattern);
	const parts: string[] = [];
	let from = 0;
	for (let match = scan.exec(text); match !== null; match = scan.exec(text)) {
		parts.push(text.slice(from, match.index), replacement(match, kind, keep === true));
		from = scan.lastIndex;
	}
	if (from === 0) return text;
	parts.push(text.slice(from));
	return parts.join("");
}

/** What stands for one match: its marker, after the kept prefix when the class keeps one. */
function replacement(match: RegExpExecArray, kind: string, keep: boolean): string {
	if (!keep) return marker(kind);
	// The first group is kept; the last that matched is the secret (and what follows it stays too).
	let secret = "";
	for (let group = match.length - 1; group > 0; group--) {
		const text = match[group];
		if (text !== undefined) {
			secret = text;
			break;
		}
	}
	if (NOT_A_SECRET.test(secret.trim())) return match[0];
	return `${match[1] ?? ""}${marker(kind)}`;
}

/** `value` with every string in it redacted, objects and arrays walked. */
export function redactDeep<T>(value: T): T {
	if (typeof value === "string") return redact(value) as T;
	if (Array.isArray(value)) return value.map(redactDeep) as T;
	if (value !== null && typeof value === "object") {
		return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v)])) as T;
	}
	return value;
}

/** A text that may be absent, redacted. */
export function redactOptional(text: string | null | undefined): string | null {
	return text === null || text === undefined ? null : redact(text);
}

/** A task with its text redacted: prompts never carry secrets. */
export function redactTask<T extends { readonly text: string }>(task: T): T {
	return { ...task, text: redact(task.text) };
}
