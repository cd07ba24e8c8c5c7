// Caches of crew's own for the toolchains a confined attempt runs: kept per repository, never the user's.

import { createHash } from "node:crypto";
import { mkdirSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import type { CachesRecord } from "../../core/sandbox-level.js";

/**
 * A toolchain whose cache (or store, or home) lives in the user's home, and the variables of its
 * own that move it: each set to a folder under the attempt's cache folder (`at`), given the
 * environment the attempt had (`env`), where a variable adds to what the user set.
 */
interface Toolchain {
	readonly name: string;
	variables(at: (name: string) => string, env: NodeJS.ProcessEnv): Record<string, string>;
}

/**
 * The toolchains moved, each by its documented variables. pnpm's store and cache, yarn 1's cache,
 * pip's, uv's and Go's build cache follow the XDG folders, set here too (so are the other tools
 * that follow them); npm, yarn 2+, cargo, Go's modules, Maven and Gradle need their own.
 */
const TOOLCHAINS: readonly Toolchain[] = [
	{ name: "npm", variables: (at) => ({ npm_config_cache: at("npm") }) },
	{ name: "yarn", variables: (at) => ({ YARN_CACHE_FOLDER: at("yarn"), YARN_GLOBAL_FOLDER: at("yarn-global") }) },
	{ name: "pip", variables: (at) => ({ PIP_CACHE_DIR: at("pip") }) },
	{ name: "uv", variables: (at) => ({ UV_CACHE_DIR: at("uv") }) },
	{ name: "cargo", variables: (at) => ({ CARGO_HOME: at("cargo") }) },
	{
		name: "go",
		variables: (at) => ({ GOPATH: at("go"), GOMODCACHE: at("go/pkg/mod"), GOCACHE: at("go-build") }),
	},
	{
		name: "maven",
		variables: (at, env) => ({
			MAVEN_OPTS: [env.MAVEN_OPTS, `-Dmaven.repo.local=${at("maven")}`].filter(Boolean).join(" "),
		}),
	},
	{ name: "gradle", variables: (at) => ({ GRADLE_USER_HOME: at("gradle") }) },
	{
		name: "xdg",
		variables: (at) => ({
			XDG_CACHE_HOME: at("xdg-cache"),
			XDG_DATA_HOME: at("xdg-data"),
			XDG_STATE_HOME: at("xdg-state"),
		}),
	},
];

/** The folder under which crew keeps each repository's toolchain caches, in the user's cache folder. */
export function cachesRoot(env: NodeJS.ProcessEnv): string {
	const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
	return join(base, "crew", "toolchains");
}

/**
 * The caches of a confined attempt: those of `repository`, kept between its attempts and runs (a
 * folder named after it and a digest of its path), else, for an attempt of no repository, a
 * folder of its own (`ownFolder`), gone with its files. Made when missing; its variables set on
 * top of `env`.
 */
export function toolchainCaches(
	repository: string | undefined,
	ownFolder: string,
	env: NodeJS.ProcessEnv,
): CachesRecord & { readonly env: Record<string, string> } {
	const folder = repository === undefined ? ownFolder : join(cachesRoot(env), repositoryKey(repository));
	mkdirSync(folder, { recursive: true, mode: 0o700 });
	const at = (name: string) => {
		const path = join(folder, name);
		mkdirSync(path, { recursive: true });
		return path;
	};
	const variables = Object.assign({}, ...TOOLCHAINS.map((tool) => tool.variables(at, env))) as Record<string, string>;
	return { folder, tools: TOOLCHAINS.map((tool) => tool.name), env: variables };
}

function repositoryKey(repository: string): string {
	let real = repository;
	try {
		real = realpathSync(repository);
	} catch {
		// A repository that is gone still names its caches by the path it had.
	}
	const digest = createHash("sha256").update(real).digest("hex").slice(0, 12);
	const name = basename(real).replace(/[^A-Za-z0-9._-]/g, "_") || "repository";
	return `${name}-${digest}`;
}

/** The names of the variables that point the toolchains at crew's caches. */
export function cacheVariableNames(): string[] {
	return TOOLCHAINS.flatMap((tool) => Object.keys(tool.variables(() => "", {})));
}
