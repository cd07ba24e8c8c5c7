import { BaseSequencer, type TestSpecification } from "vitest/node";
import { SLOW_TAGS, tagsOf } from "./tags.js";

/**
 * Vitest's order, but files that start real programs (agent CLIs, a browser, Redis) first: they
 * take longest, and the many short files then fill the workers around them. Without it a fresh
 * clone, which has no timings yet, starts the largest files first, and a slow file in a few lines
 * would start last and end the run alone.
 */
export class SlowFirst extends BaseSequencer {
	override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
		const sorted = await super.sort(files);
		const slow = new Set(sorted.filter((spec) => tagsOf(spec.moduleId).some((tag) => SLOW_TAGS.includes(tag))));
		return [...sorted.filter((spec) => slow.has(spec)), ...sorted.filter((spec) => !slow.has(spec))];
	}
}
