import { defineConfig } from "vitest/config";

/** The fault-injection suite (`npm run test:faults`): its own files, and a summary at the end. */
export default defineConfig({
	test: {
		include: ["test/faults/**/*.test.ts"],
		globalSetup: ["test/faults/summary.ts", "test/setup/private-root.ts"],
		setupFiles: ["test/setup/private-machine.ts"],
		// Each file's time, for test/loop/tiers.mjs.
		reporters: ["default", "./test/loop/outcomes.ts"],
		testTimeout: 120_000,
		// Two files at a time: the kill -9 file is most of the suite's time, the others fit beside it.
		maxWorkers: 2,
		maxConcurrency: 3,
		hookTimeout: 60_000,
	},
});
