/** What a redacted secret is replaced by; its class says what was there. */
export function marker(kind: string): string {
	return `[REDACTED:${kind}]`;
}

/** Names whose value is a secret in `name=value`, `name: value` and `"name": "value"`. */
const SECRET_NAME =
	"(?:[A-Za-z0-9_.-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|auth))";

/**
 * Secret classes, most specific first, so a GitHub token inside `TOKEN=…` is named as GitHub's.
 * Each pattern matches the secret itself, or (`keep`) a prefix to keep and the secret after it.
 */
const CLASSES: readonly { readonly kind: string; readonly pattern: RegExp; readonly keep?: boolean }[] = [
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
	{ kind: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
	{ kind: "bearer", pattern: /(\b(?:Bearer|Token)\s+)([A-Za-z0-9._~+/-]{16,}=*)/gi, keep: true },
	{ kind: "url-password", pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]{3,})(?=@)/gi, keep: true },
	{
		kind: "secret",
		pattern: new RegExp(`("${SECRET_NAME}"\\s*:\\s*")((?:[^"\\\\]|\\\\.){3,})(?=")`, "gi"),
		keep: true,
	},
	{
		kind: "secret",
		pattern: new RegExp(`(\\b${SECRET_NAME}\\s*[=:]\\s*(["']))((?:(?!\\2).){3,}?)(?=\\2)`, "gi"),
		keep: true,
	},
	{
		kind: "secret",
		pattern: new RegExp(`(\\b${SECRET_NAME}\\s*[=:]\\s*)([^\\s"'\\\\,;]{3,})`, "gi"),
		keep: true,
	},
];

/**
 * Values of secret-named settings that are not secrets: type names (`password: string`),
 * references (`$TOKEN`, `${…}`, `process.env.KEY`), placeholders and markers.
 */
const NOT_A_SECRET =
	/^(?:string|number|boolean|bool|str|int|any|unknown|object|bytes|null|undefined|none|nil|true|false|required|optional|process\.env\b.*|os\.environ\b.*|[$%<{(*[].*)$/i;

/**
 * `text` with secrets replaced by `[REDACTED:<class>]`: provider API keys (Anthropic, OpenAI,
 * Google), GitHub, AWS and Slack tokens, Slack webhooks, JWTs, bearer tokens, private keys,
 * passwords in URLs, and the values of secret-named settings (`API_KEY=…`, `"password": "…"`).
 * Applied to everything crew stores, before it is stored.
 */
export function redact(text: string): string {
	let out = text;
	for (const { kind, pattern, keep } of CLASSES) {
		out = out.replace(pattern, (match: string, ...args: unknown[]) => {
			if (!keep) return marker(kind);
			// The first group is kept; the last is the secret (and what follows it stays too).
			const groups = args.filter((a): a is string => typeof a === "string").slice(0, -1);
			const secret = groups.at(-1) ?? "";
			if (NOT_A_SECRET.test(secret.trim())) return match;
			return `${groups[0] ?? ""}${marker(kind)}`;
		});
	}
	return out;
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
