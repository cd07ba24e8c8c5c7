import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readlinkSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { attemptHome, type CliHome } from "../../src/runtimes/agent/cli-home.js";

function userFolder(): { base: string; dir: string } {
	const base = mkdtempSync(join(tmpdir(), "crew-cli-home-"));
	const dir = join(base, "agent");
	mkdirSync(join(dir, "sessions"), { recursive: true });
	mkdirSync(join(dir, "agents"));
	writeFileSync(join(dir, "models.json"), "{}");
	writeFileSync(join(dir, "auth.json"), '{"token":"old"}');
	return { base, dir };
}

test("an attempt's folder links the user's entries but its own, copies its login, and writes a refreshed login back", () => {
	const { base, dir } = userFolder();
	const home: CliHome = { dir, variable: "X_DIR", through: ["auth.json"], links: { except: ["sessions"] } };
	const folder = join(base, "attempt-1.home");
	const made = attemptHome(home, folder, {});
	expect(made.env).toEqual({ X_DIR: folder });
	expect(readlinkSync(join(folder, "models.json"))).toBe(join(dir, "models.json"));
	expect(readlinkSync(join(folder, "agents"))).toBe(join(dir, "agents"));
	expect(existsSync(join(folder, "sessions"))).toBe(false);
	expect(readFileSync(join(folder, "auth.json"), "utf8")).toBe('{"token":"old"}');
	// The CLI replaces its link to models.json (as an atomic write does) and refreshes its login.
	rmSync(join(folder, "models.json"));
	writeFileSync(join(folder, "models.json"), '{"providers":"theirs"}');
	writeFileSync(join(folder, "auth.json"), '{"token":"new"}');
	made.settle();
	expect(readFileSync(join(dir, "models.json"), "utf8")).toBe("{}");
	expect(readFileSync(join(dir, "auth.json"), "utf8")).toBe('{"token":"new"}');
	expect(existsSync(join(folder, "auth.json"))).toBe(false);
});

test("a link put in place of the login's copy is not followed when it is written back; only named entries are linked for a list", () => {
	const { base, dir } = userFolder();
	writeFileSync(join(base, "elsewhere"), "someone else's file");
	const home: CliHome = { dir, variable: "X_DIR", through: ["auth.json"], links: { only: ["auth.json", "agents"] } };
	const folder = join(base, "attempt-1.home");
	const made = attemptHome(home, folder, {});
	expect(existsSync(join(folder, "models.json"))).toBe(false);
	rmSync(join(folder, "auth.json"));
	symlinkSync(join(base, "elsewhere"), join(folder, "auth.json"));
	made.settle();
	expect(readFileSync(join(dir, "auth.json"), "utf8")).toBe('{"token":"old"}');
});

test("a folder the user's variable names that is not there is left to the CLI to refuse", () => {
	const { base } = userFolder();
	const dir = join(base, "missing");
	const home: CliHome = { dir, variable: "X_DIR", through: [], links: { except: [] } };
	const made = attemptHome(home, join(base, "attempt-1.home"), { X_DIR: dir });
	expect(made.env).toEqual({});
	expect(existsSync(join(base, "attempt-1.home"))).toBe(false);
});

test("a retried attempt's folder keeps its links, even to an entry the user has since removed", () => {
	const { base, dir } = userFolder();
	const home: CliHome = { dir, variable: "X_DIR", through: ["auth.json"], links: { except: ["sessions"] } };
	const folder = join(base, "attempt-1.home");
	attemptHome(home, folder, {}).settle();
	rmSync(join(dir, "models.json"));
	const again = attemptHome(home, folder, {});
	expect(readlinkSync(join(folder, "agents"))).toBe(join(dir, "agents"));
	expect(readFileSync(join(folder, "auth.json"), "utf8")).toBe('{"token":"old"}');
	again.settle();
});
