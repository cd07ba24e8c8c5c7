import { expect, test } from "vitest";
import { storedOptions } from "../../src/core/stored-options.js";
import type { RunOptions } from "../../src/core/types.js";
import { withKnownCredentials } from "../../src/core/url-credentials.js";

const OPTIONS: RunOptions = {
	concurrency: 2,
	failure: "drain",
	roleLimits: {},
	retries: 0,
	cwd: "/work/project",
	setup: { command: "DB_PASSWORD=local-dev-only npm ci", timeoutMs: 1000 },
	queue: "redis://crew:s3cret-queue-pass@queue.example:6380/2",
	repository: "https://x-access-token:ghs_repoTokenValue123@github.com/team/project.git",
	script: {
		file: "/work/project/.crew/workflows/s.ts",
		layer: "project",
		sha256: "0",
		roles: {},
		args: { target: "staging", apiKey: "api_key=abcdef123456", nested: ["token: zyxwvu98765"] },
	},
};

test("a run's options are stored without URL credentials and with its arguments redacted; commands as written", () => {
	const stored = storedOptions(OPTIONS);
	expect(stored.queue).toBe("redis://queue.example:6380/2");
	expect(stored.repository).toBe("https://github.com/team/project.git");
	expect(stored.script?.args).toEqual({
		target: "staging",
		apiKey: "api_key=[REDACTED:secret]",
		nested: ["token: [REDACTED:secret]"],
	});
	expect(stored.setup).toEqual(OPTIONS.setup);
	expect(JSON.stringify(stored)).not.toMatch(/s3cret-queue-pass|ghs_repoTokenValue123|abcdef123456|zyxwvu98765/);
});

test("a stored URL gets back the credentials of the known URL with the same scheme, host, port and path only", () => {
	const known = ["redis://:other@queue.example:6381/2", "redis://crew:right@queue.example:6380/2"];
	expect(withKnownCredentials("redis://queue.example:6380/2", known)).toBe("redis://crew:right@queue.example:6380/2");
	expect(withKnownCredentials("redis://queue.example:6380/3", known)).toBe("redis://queue.example:6380/3");
	expect(withKnownCredentials("/a/path/to/a/repository", known)).toBe("/a/path/to/a/repository");
});

test("a caller's session id is stored as given, unless it looks like a secret", () => {
	const session = "0196a3b2-7c1e-7d3a-9f2b-3c4d5e6f7a8b";
	expect(storedOptions({ ...OPTIONS, caller: { session } }).caller).toEqual({ session });
	const leaked = storedOptions({
		...OPTIONS,
		caller: { session: "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789" },
	});
	expect(leaked.caller?.session).toBe("[REDACTED:anthropic-key]");
	expect(storedOptions({ ...OPTIONS, caller: {} }).caller).toEqual({});
});
