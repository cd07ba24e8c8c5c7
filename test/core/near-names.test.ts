import { expect, test } from "vitest";
import { didYouMean, editDistance, typoOf } from "../../src/core/near-names.js";

const KEYS = ["dependsOn", "runtime", "retries", "role", "model", "tools"];

test("one inserted, dropped, changed or swapped character, or a change of case, makes a typo of a known key", () => {
	expect(typoOf("dependOn", KEYS)).toBe("dependsOn");
	expect(typoOf("runtim", KEYS)).toBe("runtime");
	expect(typoOf("retires", KEYS)).toBe("retries");
	expect(typoOf("modle", KEYS)).toBe("model");
	expect(typoOf("tool", KEYS)).toBe("tools");
	expect(typoOf("DependsOn", KEYS)).toBe("dependsOn");
	expect(typoOf("dependOnn", KEYS)).toBeUndefined();
	expect(typoOf("specRefs", KEYS)).toBeUndefined();
	expect(editDistance("ab", "ba")).toBe(1);
	expect(editDistance("kitten", "sitting")).toBe(3);
});

test("a missing name gets the nearest one within two edits, and nothing when none is that near", () => {
	expect(didYouMean("revew", ["review", "research", "default"])).toBe("; did you mean `review`?");
	expect(didYouMean("fast-fx", ["fast-fix", "default"])).toBe("; did you mean `fast-fix`?");
	expect(didYouMean("deploy", ["review", "research", "default"])).toBe("");
});
