import { expect, test } from "vitest";
import { citedEvidence } from "../../src/core/spec-contract.js";

test("the evidence footer is read as pi-crew reads it: marker lines, citations up to the first prose line, blocks together", () => {
	expect(citedEvidence("done, no footer")).toBeUndefined();
	expect(citedEvidence("done\nSPEC-EVIDENCE:\n")).toEqual(new Map());
	const cited = citedEvidence(
		[
			"Work done.",
			"A0: cited before any marker counts for nothing",
			"  SPEC-EVIDENCE:  ",
			"A1: tests pass",
			"",
			"A2 : lint is clean",
			"That is all.",
			"A3: after prose, not a citation",
			"SPEC-EVIDENCE:",
			"A1: a second citation of A1 is not taken",
			"A4: from a second footer",
		].join("\n"),
	);
	expect(Object.fromEntries(cited ?? [])).toEqual({
		A1: "tests pass",
		A2: "lint is clean",
		A4: "from a second footer",
	});
	// The marker is case-sensitive, as pi-crew's is.
	expect(citedEvidence("spec-evidence:\nA1: x")).toBeUndefined();
});
