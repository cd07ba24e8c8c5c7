import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { specRecord } from "../../src/specs/spec-record.js";
import { SpecStore } from "../../src/specs/spec-store.js";
import { crew } from "../helpers.js";

const RECORD = {
	id: "login-spec",
	version: 1,
	title: "Login works",
	requirements: [
		{ id: "R1", text: "a user can log in", priority: "must" },
		{ id: "R2", text: "nice errors", priority: "could" },
	],
	acceptance: [
		{
			id: "A1",
			requirementId: "R1",
			check: "login test passes",
			command: "npm test -- login",
			expectedExitCode: 0,
			idempotent: true,
		},
	],
	source: { kind: "generated" },
};

/** A project folder, and the pi agent folder its user store is kept in. */
function project(): { root: string; crewDir: string; env: NodeJS.ProcessEnv } {
	const root = mkdtempSync(join(tmpdir(), "crew-spec-"));
	mkdirSync(join(root, ".git"));
	const pi = mkdtempSync(join(tmpdir(), "crew-pi-agent-"));
	return { root, crewDir: join(root, ".crew"), env: { ...process.env, PI_CODING_AGENT_DIR: pi } };
}

test("an imported spec is kept where pi-crew keeps a user's, marked with the digest pi-crew computes", () => {
	const { root, crewDir, env } = project();
	const store = new SpecStore(root, crewDir, env);
	const minted = store.mint(specRecord(RECORD, "s.json"), "s.json", "root");
	// pi-crew's folder of a project: the first 16 hex of the sha-256 of its real path.
	const slug = createHash("sha256").update(realpathSync(root)).digest("hex").slice(0, 16);
	const dir = join(env.PI_CODING_AGENT_DIR as string, "specs", slug);
	expect(minted.file).toBe(join(dir, "login-spec.json"));
	expect(JSON.parse(readFileSync(minted.file, "utf8"))).toMatchObject({
		source: { kind: "manual", by: "root", from: "s.json" },
		trusted: true,
	});
	// The digest of this record, computed apart (Python's json.dumps with sorted keys and no spaces).
	expect(readFileSync(join(dir, "login-spec.trusted"), "utf8")).toBe(
		"17c26417080ff9735ca868b8267a012309bf545685419ff87fd8b578c1b1e9c0\n",
	);
	expect(statSync(minted.file).mode & 0o777).toBe(0o600);
	expect(store.find("login-spec")).toMatchObject({ store: "user", minted: true });

	// Changed after it was imported, it is no longer the spec the user trusted.
	const changed = JSON.parse(readFileSync(minted.file, "utf8"));
	changed.acceptance[0].command = "true";
	writeFileSync(minted.file, JSON.stringify(changed));
	expect(store.find("login-spec")).toMatchObject({ store: "user", minted: false });
	expect(store.remove("login-spec")).toBe(true);
	expect(store.find("login-spec")).toBeUndefined();
	expect(store.remove("login-spec")).toBe(false);
});

test("a spec written in the repository mints nothing, even beside a marker with its digest", () => {
	const { root, crewDir, env } = project();
	const store = new SpecStore(root, crewDir, env);
	const planted = { ...RECORD, id: "planted", source: { kind: "manual", by: "root", from: "s.json" }, trusted: true };
	mkdirSync(store.workspaceDir, { recursive: true });
	writeFileSync(join(store.workspaceDir, "planted.json"), JSON.stringify(planted));
	const digest = createHash("sha256")
		.update(JSON.stringify(sorted(planted)))
		.digest("hex");
	writeFileSync(join(store.workspaceDir, "planted.trusted"), `${digest}\n`);
	expect(store.find("planted")).toMatchObject({ store: "workspace", minted: false });
	// The user's spec of an id wins over the repository's.
	store.mint(specRecord({ ...RECORD, id: "planted" }, "s.json"), "s.json", "root");
	expect(store.find("planted")).toMatchObject({ store: "user", minted: true });
	expect(store.list().specs.map((s) => `${s.record.id}:${s.store}`)).toEqual(["planted:user"]);
});

test("a record that is not a SpecRecord is refused, naming the field, what it holds and what was expected", () => {
	const bad = (change: object) => () => specRecord({ ...RECORD, ...change }, "s.json");
	expect(bad({ id: "../etc" })).toThrow(/s\.json is not a SpecRecord: id: expected a spec id.*\(got "\.\.\/etc"\)/);
	expect(bad({ version: "1" })).toThrow(/version: .*number.*\(got "1"\)/);
	expect(bad({ requirements: [{ id: "R1", text: "t", priority: "may" }] })).toThrow(
		/requirements\.0\.priority: .*"must"\|"should"\|"could".*\(got "may"\)/,
	);
	expect(bad({ acceptance: [{ id: "A1", requirementId: "R9", check: "c" }] })).toThrow(
		/acceptance '\w+' names requirement 'R9', which the spec does not have/,
	);
	expect(
		bad({
			requirements: [
				{ id: "R1", text: "t", priority: "must" },
				{ id: "R1", text: "u", priority: "should" },
			],
		}),
	).toThrow(/requirement 'R1' is given twice/);
	// An acceptance id names a folder of the attempt's files: it is a plain name, never a path.
	expect(bad({ acceptance: [{ id: "../../x", requirementId: "R1", check: "c" }] })).toThrow(
		/acceptance\.0\.id: expected an acceptance id.*\(got "\.\.\/\.\.\/x"\)/,
	);
	expect(bad({ acceptance: [{ id: "A1", requirementId: "R1", check: "c", expectedDigest: "ABC" }] })).toThrow(
		/expectedDigest: expected a sha-256 digest in lowercase hex/,
	);
});

test("crew spec imports, lists, shows and removes a repository's specs, and refuses bad input with exit 2", async () => {
	const { root, env } = project();
	writeFileSync(join(root, "s.json"), JSON.stringify(RECORD));
	const imported = await crew(root, ["spec", "import", "s.json"], 60_000, env);
	expect(imported.code, imported.stderr).toBe(0);
	expect(imported.stdout).toMatch(/^imported spec login-spec v1, trusted as it is now: .*login-spec\.json\n$/);
	const listed = await crew(root, ["spec", "list", "--json"], 60_000, env);
	expect(JSON.parse(listed.stdout)).toEqual({
		specs: [expect.objectContaining({ id: "login-spec", version: 1, store: "user", trusted: true })],
		broken: [],
	});
	const shown = await crew(root, ["spec", "show", "login-spec"], 60_000, env);
	expect(shown.stdout).toContain("  R1 (must): a user can log in\n    A1: login test passes  $ npm test -- login\n");

	writeFileSync(join(root, "bad.json"), JSON.stringify({ ...RECORD, acceptance: [] }));
	const refused = await crew(root, ["spec", "import", "bad.json"], 60_000, env);
	expect(refused).toMatchObject({ code: 2, stdout: "" });
	expect(refused.stderr).toContain("bad.json is not a SpecRecord: acceptance:");
	expect((await crew(root, ["spec", "import", "none.json"], 60_000, env)).code).toBe(2);
	expect((await crew(root, ["spec", "show", "nope"], 60_000, env)).stderr).toContain(
		"no spec 'nope' in this repository",
	);

	expect((await crew(root, ["spec", "rm", "login-spec"], 60_000, env)).code).toBe(0);
	expect(JSON.parse((await crew(root, ["spec", "list", "--json"], 60_000, env)).stdout).specs).toEqual([]);
});

/** `value` with every object's keys sorted, as pi-crew's digest takes it. */
function sorted(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(sorted);
	if (value !== null && typeof value === "object") {
		return Object.fromEntries(
			Object.keys(value)
				.sort()
				.map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
		);
	}
	return value;
}
