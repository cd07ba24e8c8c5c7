// crew's dependencies as the registry has them now, in the user's npm cache, for the install tests' offline installs.

/**
 * `npm ci` fetches packages by the lockfile and caches only their tarballs; installing crew's
 * tarball (`npm install -g <tgz>`, `npx --package <tgz>`) resolves its dependencies through the
 * registry's metadata to their newest matching versions, which tests, reaching only 127.0.0.1, must
 * find in the cache with those versions' tarballs. The vitest global setup puts them there, online,
 * as it fetches the test tools: an install of crew's dependencies in a scratch folder, without
 * their install scripts, removed afterwards.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The npm cache of the user running the tests, where `npm ci` left every package's tarball. */
export function userNpmCache() {
	return execFileSync("npm", ["config", "get", "cache"], { env: { ...process.env, HOME: userInfo().homedir } })
		.toString()
		.trim();
}

/**
 * Runs `npm install <flags>` of crew's dependencies in a scratch folder with the user's cache, the
 * settings an npm script passes down left out; gives the lockfile it wrote, or undefined when npm failed.
 */
function install(cache, flags) {
	const dir = mkdtempSync(join(tmpdir(), "crew-npm-metadata-"));
	try {
		const { dependencies } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
		writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "metadata", private: true, dependencies }));
		const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("npm_")));
		const args = ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", ...flags];
		const run = spawnSync("npm", [...args, `--cache=${cache}`, `--logs-dir=${dir}`], {
			cwd: dir,
			env,
			encoding: "utf8",
			timeout: 300_000,
		});
		return run.status === 0 ? JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")) : undefined;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** Where cacache keeps the content of `integrity` (`sha512-<base64>`) in `cache`. */
function contentPath(cache, integrity) {
	const [algorithm = "", digest = ""] = integrity.split("-", 2);
	const hex = Buffer.from(digest, "base64").toString("hex");
	return join(cache, "_cacache", "content-v2", algorithm, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
}

/**
 * Whether an offline install of crew's tarball would find all it needs in `cache`: its dependencies
 * resolve from the cached metadata alone, and every tarball they resolve to is there.
 */
function cached(cache) {
	const lock = install(cache, ["--offline", "--package-lock-only"]);
	if (!lock) return false;
	// A package built for another system (an optional dependency's) is never installed here.
	const elsewhere = (entry) =>
		(entry.os && !entry.os.includes(process.platform)) || (entry.cpu && !entry.cpu.includes(process.arch));
	return Object.entries(lock.packages ?? {}).every(
		([path, entry]) =>
			path === "" || !entry.integrity || elsewhere(entry) || existsSync(contentPath(cache, entry.integrity)),
	);
}

/** Fills the user's cache from the registry when it lacks that; true when it holds it in the end. */
export function ensureRegistryMetadata() {
	const cache = userNpmCache();
	if (cached(cache)) return true;
	console.log("fetching crew's dependencies as the registry has them into npm's cache, for the install tests");
	install(cache, []);
	return cached(cache);
}
