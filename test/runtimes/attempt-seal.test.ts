import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ATTEMPT_TOKEN, AttemptSeal } from "../../src/runtimes/process/attempt-seal.js";

const variables = {
	CREW_RUN_ID: "20260101-000000-abcdef",
	CREW_TASK_ID: "a",
	CREW_ATTEMPT: "1",
	CREW_PROMPT_FILE: "/repo/.crew/runs/20260101-000000-abcdef/tasks/a/prompt.md",
};

test("an attempt token proves only the run, task, attempt and prompt file it was made for, under the user's key", () => {
	const keyFile = join(mkdtempSync(join(tmpdir(), "crew-seal-")), "crew", "attempt.key");
	const seal = new AttemptSeal({ keyFile });
	const token = seal.token(variables);
	expect(seal.proves({ ...variables, [ATTEMPT_TOKEN]: token })).toBe(true);
	// Another instance reads the same key: a later crew process proves what an earlier one made.
	expect(new AttemptSeal({ keyFile }).proves({ ...variables, [ATTEMPT_TOKEN]: token })).toBe(true);
	for (const [name, value] of Object.entries({ ...variables, CREW_RUN_ID: "20260101-000000-000000" })) {
		if (value === variables[name as keyof typeof variables]) continue;
		expect(seal.proves({ ...variables, [name]: value, [ATTEMPT_TOKEN]: token })).toBe(false);
	}
	expect(seal.proves({ ...variables, CREW_PROMPT_FILE: "/other/prompt.md", [ATTEMPT_TOKEN]: token })).toBe(false);
	expect(seal.proves({ ...variables, CREW_ATTEMPT: "2", [ATTEMPT_TOKEN]: token })).toBe(false);
	expect(seal.proves(variables)).toBe(false);
	expect(seal.proves({ ...variables, [ATTEMPT_TOKEN]: `${token.split(".")[0]}.${"0".repeat(64)}` })).toBe(false);
	expect(seal.proves({ ...variables, [ATTEMPT_TOKEN]: "not a token" })).toBe(false);
	// Another user's key (or a made-up one) proves nothing of this one's.
	const other = new AttemptSeal({ keyFile: join(mkdtempSync(join(tmpdir(), "crew-seal-")), "attempt.key") });
	expect(other.proves({ ...variables, [ATTEMPT_TOKEN]: token })).toBe(false);
});

test("a key file that is not a key is refused, naming it", () => {
	const keyFile = join(mkdtempSync(join(tmpdir(), "crew-seal-")), "attempt.key");
	writeFileSync(keyFile, "hello");
	expect(() => new AttemptSeal({ keyFile }).token(variables)).toThrow(
		`${keyFile} is not a crew attempt key (64 hex digits): remove it and crew makes a new one`,
	);
});
