// @module-tag npm
// @slow: npm installs crew four ways; installing the clone and packing it each build crew from its sources
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { gitRepo, ROOT } from "../helpers.js";
import { userNpmCache } from "../setup/npm-metadata.mjs";

/**
 * crew installed as a user installs it: globally from a clone, from the tarball `npm pack` makes,
 * and through npx from that tarball, each into a fresh folder, then run there. Tests reach only
 * 127.0.0.1, so npm installs offline from the user's cache, which `npm ci` and the global setup filled; better-sqlite3 takes its
 * binding from a local prebuild of the one already built (prebuild-install's documented offline
 * path) rather than compiling SQLite again for each install.
 */
const work = mkdtempSync(join(tmpdir(), "crew-install-"));
const versionOf = (dir: string): string => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
const version = versionOf(ROOT);
/** The npm cache of the user running the tests, where `npm ci` left every package's tarball. */
const cache = userNpmCache();

function npmEnv(): NodeJS.ProcessEnv {
	const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("npm_")));
	return {
		...env,
		npm_config_cache: cache,
		npm_config_offline: "true",
		npm_config_audit: "false",
		npm_config_fund: "false",
		npm_config_update_notifier: "false",
		npm_config_logs_dir: join(work, "npm-logs"),
		npm_config_better_sqlite3_local_prebuilds: join(work, "prebuilds"),
	};
}

function npm(cwd: string, args: readonly string[]): string {
	const run = spawnSync("npm", args, { cwd, env: npmEnv(), encoding: "utf8", timeout: 240_000 });
	if (run.status !== 0) throw new Error(`npm ${args.join(" ")} exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
	return run.stdout;
}

/** A clone of the work tree as `git clone` gives it, with the packages `npm ci` installs. */
function clone(): string {
	const dir = join(work, "clone");
	const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: ROOT })
		.toString()
		.split("\0")
		.filter((file) => file !== "" && existsSync(join(ROOT, file)));
	for (const file of files) {
		mkdirSync(dirname(join(dir, file)), { recursive: true });
		cpSync(join(ROOT, file), join(dir, file));
	}
	symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
	return dir;
}

/** better-sqlite3's binding for this Node, packed as prebuild-install looks for it. */
function localPrebuild(): void {
	const sqlite = join(ROOT, "node_modules", "better-sqlite3");
	const stage = join(work, "prebuild-stage");
	mkdirSync(join(stage, "build", "Release"), { recursive: true });
	cpSync(
		join(sqlite, "build", "Release", "better_sqlite3.node"),
		join(stage, "build", "Release", "better_sqlite3.node"),
	);
	mkdirSync(join(work, "prebuilds"));
	const name = `better-sqlite3-v${versionOf(sqlite)}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
	execFileSync("tar", ["-czf", join(work, "prebuilds", name), "-C", stage, "build"]);
}

/** `crew` at `bin` runs a whole dry run in a fresh repository: its CLI, store and SQLite binding work. */
function works(bin: string): void {
	expect(execFileSync(bin, ["--version"]).toString().trim()).toBe(version);
	const repo = gitRepo();
	const run = spawnSync(bin, ["run", "tick", "--workflow", "chain", "--runtime", "dry-run", "--json"], {
		cwd: repo.dir,
		encoding: "utf8",
	});
	expect(run.stderr).toBe("");
	expect(run.status).toBe(0);
	expect(JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}")).toMatchObject({ status: "completed" });
}

/**
 * Whether npm's cache holds what installing the tarball offline needs: the suite's global setup
 * puts it there (test/setup/npm-metadata.mjs). Only on a machine that cannot reach the registry are
 * the two installs that need it skipped, and never in CI, where they fail instead.
 */
const canInstallTarball = inject("npmInstallsOffline") || process.env.CI === "true";
if (!canInstallTarball) {
	process.stderr.write(
		"install tests: the npm registry was out of reach and npm's cache lacks crew's dependencies; the tarball and npx installs are skipped\n",
	);
}

let source: string;
let tarball: string;
const npxBefore = new Set<string>();

beforeAll(() => {
	source = clone();
	localPrebuild();
	for (const entry of existsSync(join(cache, "_npx")) ? readdirSync(join(cache, "_npx")) : []) npxBefore.add(entry);
}, 120_000);

afterAll(() => {
	// npx keeps what it installs in the cache; only what this test put there is taken out again.
	const npx = join(cache, "_npx");
	for (const entry of existsSync(npx) ? readdirSync(npx) : []) {
		if (!npxBefore.has(entry)) rmSync(join(npx, entry), { recursive: true, force: true });
	}
	rmSync(work, { recursive: true, force: true });
});

describe("installing crew", () => {
	it("installs globally from a clone with npm install -g .", () => {
		const prefix = join(work, "global-clone");
		npm(source, ["install", "-g", ".", "--prefix", prefix]);
		works(join(prefix, "bin", "crew"));
	}, 240_000);

	it("packs a tarball of what runs crew, without the test-only tools", () => {
		npm(source, ["pack", "--pack-destination", work]);
		tarball = join(work, `crew-${version}.tgz`);
		const packed = execFileSync("tar", ["-tzf", tarball]).toString().split("\n");
		expect(packed).toContain("package/dist/cli/main.js");
		expect(packed.filter((path) => /^package\/(tools|test|src)\//.test(path))).toEqual([]);
	}, 240_000);

	it.skipIf(!canInstallTarball)(
		"installs the tarball globally into a fresh folder",
		() => {
			const prefix = join(work, "global-tarball");
			const fresh = join(work, "fresh");
			mkdirSync(fresh);
			npm(fresh, ["install", "-g", tarball, "--prefix", prefix]);
			works(join(prefix, "bin", "crew"));
			// The pi crew is developed with is not in its package: without one on PATH, a pi agent says so.
			const repo = gitRepo();
			const env = { ...process.env, PATH: dirname(process.execPath) };
			const agent = spawnSync(join(prefix, "bin", "crew"), ["agent", "look around"], {
				cwd: repo.dir,
				env,
				encoding: "utf8",
			});
			expect(agent.status).toBe(1);
			expect(agent.stderr).toContain(
				"no pi to run: none is on PATH; install pi (npm install -g @earendil-works/pi-coding-agent)",
			);
		},
		240_000,
	);

	it.skipIf(!canInstallTarball)(
		"runs through npx from the tarball",
		() => {
			const fresh = join(work, "fresh-npx");
			mkdirSync(fresh);
			const out = npm(fresh, ["exec", "--yes", "--package", tarball, "--", "crew", "--version"]);
			expect(out.trim()).toBe(version);
		},
		240_000,
	);
});
