// @module-tag agent-cli
// @slow: each attack is a real agent planting git metadata, then crew's and the user's git calls
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
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

test("the shared checkout's git folder moved aside for one of the agent's runs in no later git", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-moved-git");
	await v.agent([`mv .git .git-aside && git init -q . && git config core.fsmonitor "touch ${marker}; false"`]);
	await v.agent(["echo hello"], { workspace: "worktree" });
	v.git(["status"]);
	expect(existsSync(marker)).toBe(false);
	// The move itself is refused: the checkout's git folder stays where crew and the user find it.
	expect(existsSync(join(v.repo, ".git-aside"))).toBe(false);
	expect(v.git(["log", "--format=%s"])).toBe("start");
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

test("a task moves no other task's branch of its run, nor makes one", async () => {
	const v = victim();
	const layer = join(v.home, ".config", "crew");
	mkdirSync(join(layer, "agents"), { recursive: true });
	mkdirSync(join(layer, "workflows"));
	writeFileSync(join(layer, "agents", "intruder.md"), "---\nname: intruder\nruntime: pi\n---\nYou do the task.\n");
	writeFileSync(
		join(layer, "agents", "honest.md"),
		"---\nname: honest\nruntime: command\ncommand: sleep 3 && echo honest > honest.txt\n---\n",
	);
	writeFileSync(
		join(layer, "workflows", "pair.md"),
		"---\nname: pair\n---\n## a\nrole: intruder\n\nwork\n\n## b\nrole: honest\n\nwork\n",
	);
	// The other task's branch, once there, is set to a commit of the intruder's; and a branch is made beside it.
	const { result } = await v.agent(
		[
			[
				"R=refs/heads/$(dirname $(git branch --show-current))",
				"until git worktree list | grep -q /b; do sleep 0.2; done",
				"echo forged > forged.txt && git add forged.txt && C=$(git -c user.name=i -c user.email=i@localhost commit-tree $(git write-tree) -p HEAD -m forged)",
				"git rm -q --cached forged.txt && rm forged.txt",
				"git update-ref $R/b $C && git update-ref $R/ghost $C && echo moved",
			].join("; "),
		],
		{ workflow: "pair", workspace: "worktree" },
	);
	expect(v.git(["log", "--all", "--format=%s"])).not.toContain("forged");
	expect(v.git(["for-each-ref", "--format=%(refname)"])).not.toContain("/ghost");
	expect(result.stdout + result.stderr).toMatch(/which crew undid: .*crew-tasks\/[^/]+\/b\b/);
});
