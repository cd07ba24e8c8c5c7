import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { SlowFirst } from "./test/setup/slow-first.js";
import { TAGS, tierFiles } from "./test/setup/tags.js";

const ROOT = fileURLToPath(new URL(".", import.meta.url));

/**
 * The suite, or one tier of it (`CREW_TEST_TIER`, see test/setup/tags.ts). Most tests wait on
 * child processes (agent CLIs, git, crew itself), so files run several at a time even on two
 * cores (`CREW_TEST_WORKERS`, default 4); each file gets a private machine of its own (see
 * test/setup/private-machine.ts), so files are safe side by side.
 */
export default defineConfig({
	test: {
		// The fault, attack and honest-work suites run on their own: npm run test:faults, test:attacks, test:honest.
		include: tierFiles(ROOT, process.env.CREW_TEST_TIER),
		pool: "forks",
		// Files share a worker process (no mocks, no module-level state): a process per file would
		// cost a Node start and every import again, for each of the suite's files.
		isolate: false,
		maxWorkers: Number(process.env.CREW_TEST_WORKERS ?? 4),
		sequence: { sequencer: SlowFirst },
		// Each file's time, for test/loop/tiers.mjs.
		reporters: ["default", "./test/loop/outcomes.ts"],
		// A timeout only catches a hang (speed is the benches' to judge): with four files on two
		// shared cores, tests that take 25 s alone have taken over 60.
		testTimeout: 120_000,
		hookTimeout: 60_000,
		// A poll's limit, too, only catches a hang: it waits as long as the Playwright waits beside it
		// (30 s), where vitest's default of 1 s fails a test on a busy host.
		expect: { poll: { timeout: 30_000 } },
		// pi 1.x and its Node 22 are fetched for the tiers that start agent CLIs (test/setup/test-tools.mjs).
		globalSetup: [
			"test/setup/private-root.ts",
			...(process.env.CREW_TEST_TIER === "quick" ? [] : ["test/setup/test-tools.mjs"]),
		],
		setupFiles: ["test/setup/private-machine.ts"],
		tags: TAGS,
		// npm run test:coverage: what the suite's own processes run of src/ (crew's CLI, started
		// as a process of its own, is not counted).
		coverage: {
			provider: "v8",
			include: ["src/**"],
			reporter: ["text-summary", "json-summary"],
			reportsDirectory: "test-results/coverage",
			reportOnFailure: true,
		},
	},
});
