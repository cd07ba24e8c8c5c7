// A vitest reporter writing each test file's time and each failure to the file CREW_TEST_OUTCOMES names, for test/loop/tiers.mjs.

import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Reporter, TestModule } from "vitest/node";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

type Failure = { file: string; test: string; error: string; at?: string };
type ErrorLike = { message?: string; name?: string; stacks?: readonly { file: string; line: number }[] };

/** An error's first line, bounded: what a reader needs to find it in the output above. */
const firstLine = (error: ErrorLike) =>
	`${error.name && !error.message?.startsWith(error.name) ? `${error.name}: ` : ""}${error.message ?? ""}`
		.split("\n")[0]
		?.slice(0, 300) ?? "";

/** A failure of `file`'s, with where in this checkout its error was thrown when its stack says. */
function failure(file: string, test: string, error: ErrorLike): Failure {
	const frame = error.stacks?.find((f) => f.file.startsWith(ROOT) && !f.file.includes("/node_modules/"));
	return {
		file,
		test,
		error: firstLine(error),
		...(frame ? { at: `${relative(ROOT, frame.file)}:${frame.line}` } : {}),
	};
}

/**
 * A file's time is its import, its setup files, and its tests and hooks (vitest runs a file's tests
 * one after another), in seconds. A failure is a failed test, an error outside any test (a file that
 * did not load, a failed hook), or an error vitest caught unhandled. Nothing is written when
 * CREW_TEST_OUTCOMES is unset, as when a developer runs vitest by hand.
 */
export default class Outcomes implements Reporter {
	onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<ErrorLike>): void {
		const out = process.env.CREW_TEST_OUTCOMES;
		if (!out) return;
		const files: Record<string, number> = {};
		const failures: Failure[] = [];
		for (const module of modules) {
			const file = relative(ROOT, module.moduleId);
			const { collectDuration, setupDuration, duration } = module.diagnostic();
			files[file] = Math.round((collectDuration + setupDuration + duration) / 100) / 10;
			for (const error of module.errors()) failures.push(failure(file, "(the file)", error));
			for (const suite of module.children.allSuites())
				for (const error of suite.errors()) failures.push(failure(file, suite.fullName, error));
			for (const test of module.children.allTests("failed"))
				for (const error of test.result().errors ?? []) failures.push(failure(file, test.fullName, error));
		}
		for (const error of unhandled) failures.push(failure("(none)", "(unhandled)", error));
		writeFileSync(out, `${JSON.stringify({ files, failures }, null, "\t")}\n`);
	}
}
