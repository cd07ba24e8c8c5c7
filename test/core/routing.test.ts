import { expect, test } from "vitest";
import { matchHints } from "../../src/core/routing.js";

const hints = {
	triggers: ["bug", "fix", "how does"],
	useWhen: "the fix is small and local",
	avoidWhen: "a large change",
};

test("triggers count most, useWhen words a little, avoidWhen words against; plurals and -ing match", () => {
	expect(matchHints("Fix two bugs in the parser", hints)).toEqual({
		score: 7,
		triggers: ["bug", "fix"],
		useWhen: ["fix"],
		avoidWhen: [],
	});
	expect(matchHints("how does the cache work", hints).triggers).toEqual(["how does"]);
	expect(matchHints("a large change of the parser", hints)).toMatchObject({
		score: -6,
		avoidWhen: ["large", "change"],
	});
	expect(matchHints("", hints).score).toBe(0);
});
