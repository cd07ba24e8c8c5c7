import { setTimeout as sleep } from "node:timers/promises";
import { expect, test } from "vitest";
import { Turns } from "../../src/core/turns.js";

test("work of one key runs one piece at a time, in order, past a failure; other keys do not wait", async () => {
	const turns = new Turns();
	const seen: string[] = [];
	const piece =
		(name: string, ms: number, fail = false) =>
		async () => {
			seen.push(`${name} start`);
			await sleep(ms);
			seen.push(`${name} end`);
			if (fail) throw new Error(`${name} failed`);
			return name;
		};
	const a = turns.take("k", piece("a", 30, true));
	const b = turns.take("k", piece("b", 5));
	const other = turns.take("j", piece("other", 1));
	await expect(a).rejects.toThrow("a failed");
	expect(await b).toBe("b");
	expect(await other).toBe("other");
	expect(seen.filter((s) => !s.startsWith("other"))).toEqual(["a start", "a end", "b start", "b end"]);
	expect(seen.indexOf("other end")).toBeLessThan(seen.indexOf("a end"));
});
