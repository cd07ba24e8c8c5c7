import assert from "node:assert/strict";
import { test } from "node:test";
import { slugify } from "../src/slug.js";

test("joins words with dashes", () => {
	assert.equal(slugify("crew runs teams"), "crew-runs-teams");
});

test("drops punctuation", () => {
	assert.equal(slugify("Hello, World!"), "hello-world");
});
