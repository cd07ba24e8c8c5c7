import { expect, test } from "vitest";
import { goalVerdict } from "../../src/engine/goals/verdict.js";

const fenced = (value: unknown) => `I looked.\n\n\`\`\`json\n${JSON.stringify(value)}\n\`\`\``;

test("a judge's verdict is read in crew's form, however its verdict is cased or spaced, and in pi-crew's", () => {
	expect(goalVerdict(fenced({ verdict: "ACHIEVED", reason: " done ", evidence: ["a.txt"] }))).toEqual({
		verdict: "achieved",
		reason: "done",
		evidence: ["a.txt"],
	});
	expect(goalVerdict(fenced({ verdict: "not achieved", reason: "no tests", extra: 1 }))).toEqual({
		verdict: "not-achieved",
		reason: "no tests",
		evidence: [],
	});
	expect(goalVerdict(JSON.stringify({ verdict: "Not-Achieved", reason: "r" }))).toMatchObject({
		verdict: "not-achieved",
	});
	expect(goalVerdict(fenced({ verdict: "blocked", reason: "no key" }))).toMatchObject({ verdict: "blocked" });
	expect(goalVerdict(fenced({ achieved: true, reason: "", evidenceRefs: ["t1"] }))).toEqual({
		verdict: "achieved",
		reason: "",
		evidence: ["t1"],
	});
	expect(goalVerdict(fenced({ achieved: false, reason: "BLOCKED: no credentials" }))).toEqual({
		verdict: "blocked",
		reason: "no credentials",
		evidence: [],
	});
	expect(goalVerdict(fenced({ achieved: false, reason: "half done" }))).toMatchObject({ verdict: "not-achieved" });
	// A verdict that is not crew's falls back to pi-crew's form when it is one.
	expect(goalVerdict(fenced({ verdict: "maybe", achieved: true, reason: "ok" }))).toMatchObject({
		verdict: "achieved",
	});
});

test("an answer that is no verdict, or a verdict without its reason, is a problem named", () => {
	const notVerdict = {
		problem:
			'the answer is not a verdict: expected {"verdict": "ACHIEVED" | "NOT_ACHIEVED" | "BLOCKED", "reason": "…"} or {"achieved": true | false, "reason": "…"}',
	};
	for (const value of [
		{ verdict: "maybe", reason: "r" },
		{ verdict: "ACHIEVED" },
		{ verdict: "ACHIEVED", reason: "r", evidence: "a.txt" },
		{ verdict: "ACHIEVED", reason: "r", evidence: [1] },
		{ achieved: "yes", reason: "r" },
		{ achieved: true, reason: "r", evidenceRefs: [null] },
		["ACHIEVED"],
		null,
		7,
	]) {
		expect(goalVerdict(fenced(value))).toEqual(notVerdict);
	}
	expect(goalVerdict(fenced({ verdict: "NOT_ACHIEVED", reason: "  " }))).toEqual({
		problem: "a not-achieved verdict needs a reason",
	});
	expect(goalVerdict(fenced({ achieved: false, reason: "BLOCKED:" }))).toEqual({
		problem: "a blocked verdict needs a reason",
	});
});
