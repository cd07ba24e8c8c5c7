import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { CLI, TestRepo } from "../../helpers.js";

function doctor(
	cwd: string,
	env: NodeJS.ProcessEnv,
): Promise<{ code: number; checks: { name: string; ok: boolean; detail: string }[] }> {
	return new Promise((resolve) => {
		execFile(process.execPath, [CLI, "doctor", "--json"], { cwd, env, timeout: 60_000 }, (error, stdout) => {
			const code = error ? Number(error.code ?? 1) : 0;
			resolve({ code, checks: stdout.trim() ? JSON.parse(stdout).checks : [] });
		});
	});
}

test("doctor reports pi's version, credential names without values, and the store", async () => {
	const repo = new TestRepo();
	const { code, checks } = await doctor(repo.dir, {
		PATH: process.env.PATH,
		HOME: repo.dir,
		OPENAI_API_KEY: "sk-secret-value",
		ANTHROPIC_API_KEY: "sk-ant-secret-value",
		DATABASE_URL: "postgres://secret",
	});
	expect(code).toBe(0);
	const byName = new Map(checks.map((c) => [c.name, c]));
	expect(byName.get("runtime pi (default)")).toEqual({ name: "runtime pi (default)", ok: true, detail: "0.73.1" });
	// Each runtime is shown what it would get: pi with no model of its own, every provider's keys.
	expect(byName.get("credentials for pi")?.detail).toBe("ANTHROPIC_API_KEY, OPENAI_API_KEY");
	expect(byName.get("credentials for claude")?.detail).toBe("ANTHROPIC_API_KEY");
	expect(byName.get("credentials for codex")?.detail).toBe("OPENAI_API_KEY");
	expect(JSON.stringify(checks)).not.toMatch(/secret/);
	expect(byName.get("store")).toMatchObject({ ok: true, detail: expect.stringMatching(/crew\.db: not created yet$/) });
});

test("doctor fails on a damaged store and names its file", async () => {
	const repo = new TestRepo();
	writeFileSync(join(repo.dir, ".crew", "crew.db"), "not a database at all ".repeat(200));
	const { code, checks } = await doctor(repo.dir, { PATH: process.env.PATH, HOME: repo.dir });
	expect(code).toBe(1);
	const store = checks.find((c) => c.name === "store");
	expect(store?.ok).toBe(false);
	expect(store?.detail).toMatch(/crew\.db/);
});
