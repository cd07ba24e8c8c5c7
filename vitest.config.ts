import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/** A user config folder no test writes to: tests see no personal agents, teams or workflows. */
const noUser = join(tmpdir(), "crew-tests-no-user-config");

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// The fault suite runs on its own: npm run test:faults.
		exclude: ["test/faults/**"],
		testTimeout: 60_000,
		hookTimeout: 60_000,
		env: { XDG_CONFIG_HOME: noUser, PI_CODING_AGENT_DIR: join(noUser, "pi-agent") },
	},
});
