import type { Reporter, TestModule } from "vitest/node";

/** What a suite's tests are, and the words for one that passed and one that failed: attacks that held, or did not hold. */
export interface TallyWords {
	readonly noun: string;
	readonly passed: string;
	readonly failed: string;
}

/**
 * A suite's tally, after vitest's own report: each test is one attack, or one task of honest
 * work. `attacks: N tried, M held`, then each that did not, with the first line of why.
 */
export default class Tally implements Reporter {
	readonly #words: TallyWords;

	constructor(words: TallyWords) {
		this.#words = words;
	}

	onTestRunEnd(modules: readonly TestModule[]): void {
		// A test left out (by -t, or skipped) was not tried.
		const tried = modules
			.flatMap((module) => [...module.children.allTests()])
			.filter((test) => test.result().state !== "skipped");
		const failed = tried.filter((test) => test.result().state !== "passed");
		const { noun, passed, failed: not } = this.#words;
		const lines = [
			"",
			`${noun}: ${tried.length} tried, ${tried.length - failed.length} ${passed}`,
			...failed.map((test) => {
				const why = test.result().errors?.[0]?.message?.split("\n")[0] ?? "";
				return `  ${not}: ${test.module.relativeModuleId} > ${test.fullName}${why ? `: ${why}` : ""}`;
			}),
			"",
		];
		process.stdout.write(`${lines.join("\n")}\n`);
	}
}
