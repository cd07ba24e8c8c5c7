import { expect, test } from "vitest";
import { isRetryableModelError } from "../../src/runtimes/agent/model-errors.js";

test("an HTTP status a CLI puts first decides, whatever words the provider's body holds", () => {
	expect(isRetryableModelError('429: {"message":"slow down","type":"invalid_request_error"}')).toBe(true);
	expect(isRetryableModelError('503: {"message":"invalid upstream"}')).toBe(true);
	expect(isRetryableModelError('401: {"message":"connection refused by policy"}')).toBe(false);
	expect(isRetryableModelError('400: {"message":"rate limit field is not allowed"}')).toBe(false);
});

test("without a status first, the words decide", () => {
	expect(isRetryableModelError("Connection error.: connect ECONNREFUSED 127.0.0.1:9")).toBe(true);
	expect(isRetryableModelError("the model is overloaded")).toBe(true);
	expect(isRetryableModelError("No API key found for anthropic")).toBe(false);
	expect(isRetryableModelError("unknown model scripted-9")).toBe(false);
});
