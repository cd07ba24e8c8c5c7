import { expect, test } from "vitest";
import { readNotifyTargets } from "../../src/config/notify-targets.js";

const FILE = "/home/u/.config/crew/config.json";
const read = (value: unknown) => readNotifyTargets(FILE, value);

test("notify targets of each kind are read as written, a command trimmed; none is no targets", () => {
	expect(read(undefined)).toBeUndefined();
	expect(
		read([
			{ webhook: "https://hooks.example.com/x", secret: "s3", format: "slack", events: ["failed", "waiting"] },
			{ command: "  notify-send crew  " },
			{ ntfy: "http://127.0.0.1:8080/topic", events: ["budget"] },
		]),
	).toEqual([
		{ webhook: "https://hooks.example.com/x", secret: "s3", format: "slack", events: ["failed", "waiting"] },
		{ command: "notify-send crew" },
		{ ntfy: "http://127.0.0.1:8080/topic", events: ["budget"] },
	]);
});

test("a bad target is refused, naming the file, the target and what is wrong", () => {
	const shapes = "expected {webhook, secret?, format?, events?}, {command, events?} or {ntfy, events?}";
	const cases: [unknown, string][] = [
		[{ webhook: "x" }, 'notify: expected an array of targets, not {"webhook":"x"}'],
		[["https://a.example"], `notify[0]: ${shapes}`],
		[[{ url: "https://a.example" }], `notify[0]: ${shapes}`],
		[[{ command: "a", ntfy: "https://a.example" }], `notify[0]: ${shapes}`],
		[[{ command: "a", secret: "s" }], `notify[0]: unknown key "secret" of a command target: ${shapes}`],
		[[{ command: "   " }], "notify[0].command: expected a command line, not empty"],
		[
			[{ command: "a" }, { webhook: "ftp://a.example/x" }],
			'notify[1].webhook: "ftp://a.example/x" is not an http(s) URL',
		],
		[[{ ntfy: "not a url" }], 'notify[0].ntfy: "not a url" is not an http(s) URL'],
		[[{ webhook: "https://a.example", secret: "" }], "notify[0].secret: expected a string, not empty"],
		[[{ webhook: "https://a.example", format: "xml" }], 'notify[0].format: "xml" is not json or slack'],
		[[{ command: "a", events: [] }], "notify[0].events: expected a list of one event or more"],
		[
			[{ command: "a", events: ["ended", "done"] }],
			'notify[0].events: unknown event "done": expected one of ended, failed, waiting, budget',
		],
	];
	for (const [value, message] of cases) expect(() => read(value)).toThrow(`${FILE}: ${message}`);
});
