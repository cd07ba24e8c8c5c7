import { expect, test } from "vitest";
import { redact, redactDeep } from "../../src/core/redact.js";

/** One case per secret class: the text, the secret in it, and the class its marker names. */
const CLASSES: readonly [string, string, string, string][] = [
	[
		"an Anthropic key",
		"ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
		"sk-ant-api03-AbCdEf",
		"anthropic-key",
	],
	["an OpenAI key", 'client = OpenAI(api_key="sk-proj-AbCdEfGhIjKlMnOpQrStUvWx12")', "sk-proj-AbCdEf", "openai-key"],
	["a Google key", "key=AIzaSyA1234567890abcdefghijklmnopqrstuv&q=1", "AIzaSyA123", "google-key"],
	["a bearer token", 'curl -H "Authorization: Bearer 4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c" api', "4f9a8b7c6d5e", "bearer"],
	[
		"a private key",
		"key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACBqZWxsbw==\n-----END OPENSSH PRIVATE KEY-----\ndone",
		"b3BlbnNzaC1rZXktdjEAAAAA",
		"private-key",
	],
	[
		"a JWT",
		"token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
		"SflKxwRJSMeKKF2QT4fw",
		"jwt",
	],
	[
		"a GitHub token",
		"git clone https://x:ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@github.com/a/b",
		"ghp_AbCdEf",
		"github-token",
	],
	[
		"a GitHub fine-grained token",
		"GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
		"github_pat_11ABCD",
		"github-token",
	],
	[
		"an AWS access key",
		"aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE",
		"AKIAIOSFODNN7EXAMPLE",
		"aws-access-key",
	],
	["an AWS secret key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI", "secret"],
	["a Slack token", "SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "xoxb-1234567890", "slack-token"],
	[
		"a Slack webhook",
		"post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
		"T00000000/B000",
		"slack-webhook",
	],
	["a password in a URL", "DATABASE_URL=postgres://app:hunter2hunter@db:5432/app", "hunter2hunter", "url-password"],
	["a key=value secret", "export DB_PASSWORD=correct-horse-battery", "correct-horse-battery", "secret"],
	["a quoted secret with spaces", "password = 'correct horse battery'", "correct horse battery", "secret"],
	["a JSON secret", '{"client_secret": "s3cr3t-value-123", "user": "bob"}', "s3cr3t-value-123", "secret"],
	["a YAML secret", "auth_token: 9c1185a5c5e9fc54612808977ee8f548b2258d31", "9c1185a5c5e9fc", "secret"],
];

test.each(CLASSES)("%s is redacted, and what is around it kept", (_what, text, secret, kind) => {
	const out = redact(text);
	expect(out).not.toContain(secret);
	expect(out).toContain(`[REDACTED:${kind}]`);
	// The words around the secret are still there to read.
	const first = text.split(/\s/)[0] ?? "";
	if (!first.includes(secret.slice(0, 6))) expect(out.startsWith(first.slice(0, 3))).toBe(true);
});

test("ordinary text, type annotations, references and numbers stay as they are", () => {
	for (const text of [
		"interface Login { password: string; token: string }",
		"const key = process.env.API_KEY;",
		`API_KEY="$API_KEY" and TOKEN=\${TOKEN}`,
		"tokens: 1200, inputTokens: 33, maxTokens: 4096",
		"the author wrote: see https://example.com/a/b?x=1",
		"commit 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
		"Bearer tokens are checked by the middleware",
	]) {
		expect(redact(text)).toBe(text);
	}
});

test("redaction is stable: redacting twice changes nothing more", () => {
	const once = redact("TOKEN=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 and password: hunter2hunter");
	expect(redact(once)).toBe(once);
	expect(once).toBe("TOKEN=[REDACTED:github-token] and password: [REDACTED:secret]");
});

test("redactDeep walks objects and arrays and keeps JSON valid", () => {
	const value = {
		a: ["x", 'say "password=hunter2hunter" now'],
		b: { n: 3, s: "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz" },
	};
	const out = redactDeep(value);
	expect(out).toEqual({ a: ["x", 'say "password=[REDACTED:secret]" now'], b: { n: 3, s: "[REDACTED:anthropic-key]" } });
	expect(JSON.parse(JSON.stringify(out))).toEqual(out);
});

const MIB = 1 << 20;
const BASE64URL = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

/** `length` characters of `unit` repeated. */
function repeated(unit: string, length: number): string {
	return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Lines that once took redaction quadratic time: one run of a token class, or many short ones. */
const ADVERSARIAL: readonly [string, string][] = [
	["a 300 KB base64url run", Array.from({ length: 300_000 }, (_, i) => BASE64URL[(i * 7919) % 64]).join("")],
	["a 4 MiB base64url run", Array.from({ length: 4 * MIB }, (_, i) => BASE64URL[(i * 7919) % 64]).join("")],
	["a 4 MiB x-x-x line", repeated("x-", 4 * MIB)],
	["a 200 KB ab.ab.ab line", repeated("ab.", 200_000)],
	["a 4 MiB ab.ab.ab line", repeated("ab.", 4 * MIB)],
	["a 4 MiB eyJ-eyJ line", repeated("eyJ-", 4 * MIB)],
	[
		"a 4 MiB line of mixed text",
		repeated('const token = fn(a.b.c); "key": x-y-z https://h.io/a?b=1 eyJabc.eyJdef ab.ab sk-x AIza ', 4 * MIB),
	],
];

/** Secrets of the classes whose patterns scan runs: a GitHub token, a URL password, a JWT. */
const PLANTED = {
	start: "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
	middle: "postgres://app:hunter2hunter@db:5432/app",
	end: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
};

test.each(ADVERSARIAL)("%s is redacted to the end, secrets at its start, middle and end included", (_what, filler) => {
	const half = Math.floor(filler.length / 2);
	const text = `${PLANTED.start} ${filler.slice(0, half)} ${PLANTED.middle} ${filler.slice(half)} ${PLANTED.end}`;
	const out = redact(text);
	expect(out.startsWith("[REDACTED:github-token] ")).toBe(true);
	expect(out).toContain(" postgres://app:[REDACTED:url-password]@db:5432/app ");
	expect(out.endsWith(" [REDACTED:jwt]")).toBe(true);
	expect(out).not.toContain("hunter2hunter");
	expect(out.length).toBeGreaterThan(filler.length);
});
