import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * What a test file needs beyond Node, git and crew itself, named by a `// @module-tag <name>` line
 * at its top (as vitest reads tags). They choose the tiers, and the order files start in.
 */
export const TAGS = [
	{ name: "agent-cli", description: "starts a real agent CLI (pi, Claude Code, Codex)" },
	{ name: "browser", description: "drives Debian's Chromium" },
	{ name: "redis", description: "starts a redis-server" },
	{ name: "npm", description: "installs crew with npm, as a user would" },
	{ name: "node22", description: "behaves differently on another Node: run again on Node 22" },
];

/** The tags that mark a file as slow: it starts real programs that take seconds each. */
export const SLOW_TAGS: readonly string[] = ["agent-cli", "browser", "redis", "npm"];

/**
 * The tiers besides the whole suite (`CREW_TEST_TIER`): quick, every file that needs no agent CLI,
 * browser, Redis or npm install; node22, every file whose behaviour depends on the Node version.
 */
const TIERS: Readonly<Record<string, (tags: readonly string[]) => boolean>> = {
	quick: (tags) => !tags.some((tag) => SLOW_TAGS.includes(tag)),
	node22: (tags) => tags.includes("node22"),
};

/** The tags the file at `path` names, as vitest reads them. */
export function tagsOf(path: string): string[] {
	const text = readFileSync(path, "utf8");
	return [...text.matchAll(/(?:\/\/|\*)\s*@module-tag\s+([\w\-/]+)\b/g)].map((match) => match[1] as string);
}

/** The folders of the suites that run on their own (`npm run test:faults`, `test:attacks`, `test:honest`). */
const SUITES_APART: readonly string[] = ["faults/", "attacks/", "honest/"];

/** The test files of `tier` under `root`/test, relative to `root`; every file for no tier. */
export function tierFiles(root: string, tier: string | undefined): string[] {
	const files = readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" })
		.filter((path) => path.endsWith(".test.ts") && !SUITES_APART.some((folder) => path.startsWith(folder)))
		.map((path) => join("test", path))
		.sort();
	if (tier === undefined || tier === "") return files;
	const chooses = TIERS[tier];
	if (!chooses) throw new Error(`CREW_TEST_TIER is '${tier}': expected one of ${Object.keys(TIERS).join(", ")}`);
	return files.filter((file) => chooses(tagsOf(join(root, file))));
}
