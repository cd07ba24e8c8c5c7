// A vitest reporter writing each test file's time to the file CREW_TEST_DURATIONS names, for test/loop/tiers.mjs.

import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Reporter, TestModule } from "vitest/node";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * A file's time is its import, its setup files, and its tests and hooks (vitest runs a file's tests
 * one after another), in seconds. Nothing is written when CREW_TEST_DURATIONS is unset, as when a
 * developer runs vitest by hand.
 */
export default class Durations implements Reporter {
	onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
		const out = process.env.CREW_TEST_DURATIONS;
		if (!out) return;
		const files: Record<string, number> = {};
		for (const module of modules) {
			const { collectDuration, setupDuration, duration } = module.diagnostic();
			files[relative(ROOT, module.moduleId)] = Math.round((collectDuration + setupDuration + duration) / 100) / 10;
		}
		writeFileSync(out, `${JSON.stringify(files, null, "\t")}\n`);
	}
}
