import { defineConfig } from "vitest/config";
import { TAGS } from "./test/setup/tags.js";

/** The attack suite (`npm run test:attacks`): its own files, and a tally of what held at the end. */
export default defineConfig({
	test: {
		include: ["test/attacks/**/*.test.ts"],
		pool: "forks",
		isolate: false,
		maxWorkers: Number(process.env.CREW_TEST_WORKERS ?? 4),
		reporters: ["default", ["./test/setup/tally.ts", { noun: "attacks", passed: "held", failed: "did not hold" }], "./test/loop/outcomes.ts"],
		globalSetup: ["test/setup/private-root.ts"],
		setupFiles: ["test/setup/private-machine.ts"],
		tags: TAGS,
		testTimeout: 120_000,
		hookTimeout: 60_000,
	},
});
