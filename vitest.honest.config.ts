import { defineConfig } from "vitest/config";
import { TAGS } from "./test/setup/tags.js";

/** The honest-work suite (`npm run test:honest`): work a developer's agent does, each in the default sandbox, and its tally. */
export default defineConfig({
	test: {
		include: ["test/honest/**/*.test.ts"],
		pool: "forks",
		isolate: false,
		maxWorkers: Number(process.env.CREW_TEST_WORKERS ?? 4),
		reporters: [
			"default",
			["./test/setup/tally.ts", { noun: "honest work", passed: "passed", failed: "did not pass" }],
			"./test/loop/outcomes.ts",
		],
		globalSetup: ["test/setup/private-root.ts"],
		setupFiles: ["test/setup/private-machine.ts"],
		tags: TAGS,
		testTimeout: 120_000,
		hookTimeout: 60_000,
	},
});
