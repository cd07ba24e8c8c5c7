import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/** A user config folder no test writes to: tests see no personal agents, teams or workflows. */
const noUser = join(tmpdir(), "crew-tests-no-user-config");

/** The fault-injection suite (`npm run test:faults`): its own files, and a summary at the end. */
export default defineConfig({
	test: {
		include: ["test/faults/**/*.test.ts"],
		globalSetup: ["test/faults/summary.ts"],
		testTimeout: 120_000,
		maxConcurrency: 3,
		hookTimeout: 60_000,
		env: { XDG_CONFIG_HOME: noUser, PI_CODING_AGENT_DIR: join(noUser, "pi-agent") },
	},
});
