// @module-tag agent-cli
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { victims } from "./attacker.js";

/**
 * An agent that writes the repository's git metadata so that a program of its own runs when git
 * next runs there: crew's own git after the attempt, or the user's. Each marks its success by a
 * file outside the repository, which no confined process can write.
 */
const victim = victims();

test("core.fsmonitor set in the shared checkout runs neither in crew's git nor in the user's", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-fsmonitor");
	const { result } = await v.agent([`git config core.fsmonitor "touch ${marker}; false"`, "echo tried"]);
	expect(result.code).toBe(0);
	// crew's next worktree run looks at the checkout with git status; then the user's own.
	await v.agent(["echo hello"], { workspace: "worktree" });
	v.git(["status"]);
	expect(existsSync(marker)).toBe(false);
});

test("a post-commit hook planted in the shared checkout does not run at the user's next commit", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-hook");
	await v.agent([
		`mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit`,
	]);
	v.git(["commit", "-q", "--allow-empty", "-m", "mine"]);
	expect(existsSync(marker)).toBe(false);
});

test("a commondir planted in .git to bring in a config of the agent's does not reach any later git", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-commondir");
	await v.agent([
		`cp -r .git ../evil-git 2>/dev/null || cp -r .git evil-git; D=$(ls -d ../evil-git evil-git 2>/dev/null | head -1); git --git-dir="$D" config core.fsmonitor "touch ${marker}; false"; echo "$(cd "$D" && pwd)" > .git/commondir`,
	]);
	await v.agent(["echo hello"], { workspace: "worktree" });
	v.git(["status"]);
	expect(existsSync(marker)).toBe(false);
});

test("a worktree's .git link replaced by a repository of the agent's does not run in crew's commit of its work", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-worktree-link");
	await v.agent(
		[`rm -f .git; git init -q . && git config core.fsmonitor "touch ${marker}; false"; echo work > work.txt`],
		{ workspace: "worktree" },
	);
	v.git(["status"]);
	expect(existsSync(marker)).toBe(false);
});

test("a hook planted through a worktree's git folder does not run in crew's git or the user's", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-worktree-hook");
	await v.agent(
		[
			`C=$(git rev-parse --git-common-dir); mkdir -p "$C/hooks"; printf '#!/bin/sh\\ntouch ${marker}\\n' > "$C/hooks/post-commit"; chmod +x "$C/hooks/post-commit"; git config core.fsmonitor "touch ${marker}; false"; echo work > work.txt`,
		],
		{ workspace: "worktree" },
	);
	v.git(["commit", "-q", "--allow-empty", "-m", "mine"]);
	expect(existsSync(marker)).toBe(false);
});
