import type { Reporter, TestModule } from "vitest/node";

/**
 * The attack suite's tally, after vitest's own report: each test is one attack, which held when
 * the test passed (nothing landed outside). `attacks: N tried, M held`, then each that did not.
 */
export default class AttackSummary implements Reporter {
	onTestRunEnd(modules: readonly TestModule[]): void {
		// An attack left out (by -t, or skipped) was not tried.
		const attacks = modules
			.flatMap((module) => [...module.children.allTests()])
			.filter((attack) => attack.result().state !== "skipped");
		const broke = attacks.filter((attack) => attack.result().state !== "passed");
		const lines = [
			"",
			`attacks: ${attacks.length} tried, ${attacks.length - broke.length} held`,
			...broke.map((attack) => `  did not hold: ${attack.module.relativeModuleId} > ${attack.fullName}`),
			"",
		];
		process.stdout.write(`${lines.join("\n")}\n`);
	}
}
