import { expect, test } from "vitest";
import { MAX_PROPOSAL_CHARS, MAX_PROPOSALS, proposedKnowledge } from "../../src/core/knowledge.js";

test("an answer's proposed notes are read once each, in order, at most five, each cut to 500 characters", () => {
	const long = "x".repeat(MAX_PROPOSAL_CHARS + 50);
	const answer = [
		"Done.",
		"KNOWLEDGE: tests run with npm test",
		"KNOWLEDGE: tests run with npm test",
		`KNOWLEDGE: ${long}`,
		...Array.from({ length: 8 }, (_, i) => `KNOWLEDGE: note ${i}`),
	].join("\n");
	const notes = proposedKnowledge(answer);
	expect(notes).toHaveLength(MAX_PROPOSALS);
	expect(notes[0]).toBe("tests run with npm test");
	expect(notes[1]).toHaveLength(MAX_PROPOSAL_CHARS);
	expect(notes[1]?.endsWith("…")).toBe(true);
	expect(notes.slice(2)).toEqual(["note 0", "note 1", "note 2"]);
});
