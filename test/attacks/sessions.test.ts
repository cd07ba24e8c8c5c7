// @module-tag agent-cli
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { SECRET, victims } from "./attacker.js";

/**
 * An agent that tampers with its own session file, which crew carries into the task's next
 * attempt: crew reads it there, outside the sandbox, where a link could lead anywhere.
 */
const victim = victims();

test("an agent that links its session file to a secret of the home finds none of it in its next attempt", async () => {
	const v = victim();
	const key = join(v.home, ".ssh", "id_ed25519");
	mkdirSync(join(v.home, ".ssh"), { recursive: true });
	// A file of the user's that pi would read as a session, so what crew copies of it reaches the model.
	const said = { role: "user", content: [{ type: "text", text: `the key is ${SECRET}` }], timestamp: 1 };
	writeFileSync(
		key,
		[
			{ type: "session", version: 3, id: "planted", timestamp: "2026-01-01T00:00:00.000Z", cwd: v.repo },
			{ type: "message", id: "0000beef", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message: said },
		]
			.map((line) => JSON.stringify(line))
			.join("\n"),
	);
	const session = (n: number) =>
		`$(find "$PWD/.crew" -path '*/attempt-${n}.session/session.jsonl' 2>/dev/null | head -1)`;
	const { seen } = await v.agent([
		`f=${session(1)}; rm -f "$f"; ln -s '${key}' "$f"; echo linked "$f"`,
		{ kind: "error", status: 500, message: "overloaded, try again" },
		`cat ${session(2)}; echo looked`,
	]);
	expect(seen).toContain("linked");
	expect(seen).toContain("looked");
	expect(seen).not.toContain(SECRET);
	// crew took no session from a link: the next attempt started over, and nothing of the key was copied.
	expect(seen).not.toContain("in the same conversation");
	const copied = spawnSync("grep", ["-rl", SECRET, join(v.repo, ".crew")], { encoding: "utf8" });
	expect({ status: copied.status, files: copied.stdout }).toEqual({ status: 1, files: "" });
});
