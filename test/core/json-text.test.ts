import { expect, test } from "vitest";
import { parseJsonText } from "../../src/core/json-text.js";

test("text that is not JSON is said so on one line, without the text's own words, whatever the parser quoted", () => {
	const why = (text: string) => {
		try {
			parseJsonText(text, "f.json");
		} catch (error) {
			return (error as Error).message;
		}
		return "parsed";
	};
	expect(why('{"a": 1}')).toBe("parsed");
	expect(why("not json {\nsecret line")).toBe("f.json is not valid JSON: Unexpected token 'o'");
	expect(why(`not json ${"x".repeat(100)}\nsecret`)).toBe("f.json is not valid JSON: Unexpected token 'o'");
	expect(why("")).toBe("f.json is not valid JSON: Unexpected end of JSON input");
	expect(why('{"a": 1} tail')).not.toMatch(/\n|tail/);
});
