// @module-tag agent-cli
// @slow: each attack is a real agent planting a git folder, then the user's next git commands
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { type Victim, victims } from "./attacker.js";

/**
 * An agent that leaves in its workspace a git folder of its own, or a file the user's git reads
 * as config, so that a program of its own runs at the user's next ordinary git command there:
 * unconfined, as the user, and invisible in the diff the user reviews. Each marks its success by
 * a file outside the repository, which no confined process can write.
 */
const victim = victims();

/** A repository of the agent's at `dir` (relative), whose file system monitor and clean filter write `marker`. */
function nestedRepository(dir: string, marker: string): string {
	return [
		`mkdir -p ${dir} && cd ${dir} && git init -q`,
		`git config core.fsmonitor "touch ${marker}-fsmonitor; false"`,
		`git config filter.x.clean "touch ${marker}-filter; cat"`,
		"echo '* filter=x' > .gitattributes && echo hello > f.txt && git add -A",
		"git -c user.name=a -c user.email=a@localhost commit -qm s && echo changed > f.txt",
	].join(" && ");
}

/** The user's ordinary git commands at the repository's root, and in `folders` below it. */
function userGit(v: Victim, folders: readonly string[] = []): void {
	v.git(["status"]);
	v.git(["diff"]);
	v.git(["add", "-A"]);
	for (const folder of folders) {
		const cwd = join(v.repo, folder);
		if (!existsSync(cwd)) continue;
		for (const args of [["status"], ["diff"], ["log", "-1"]]) {
			try {
				v.git(args, cwd);
			} catch {
				// A folder that is no repository any more makes git fail: what matters is what it ran.
			}
		}
	}
}

const ran = (marker: string) => ["-fsmonitor", "-filter", ""].filter((suffix) => existsSync(`${marker}${suffix}`));

test("a nested repository an agent leaves in the shared checkout runs nothing at the user's next git, and its files stay", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-nested");
	const { result } = await v.agent([nestedRepository("sub", marker), "echo tried"]);
	expect(result.code).toBe(0);
	userGit(v, ["sub"]);
	expect(ran(marker)).toEqual([]);
	expect(readFileSync(join(v.repo, "sub", "f.txt"), "utf8")).toBe("changed\n");
	expect(existsSync(join(v.repo, "sub", ".git"))).toBe(false);
});

test("a nested repository registered as a submodule is refused, and runs nothing at the user's next git", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-submodule");
	const { result } = await v.agent([
		nestedRepository("sub", marker),
		`git add sub && printf '[submodule "sub"]\\n\\tpath = sub\\n\\turl = ./sub\\n' > .gitmodules && git add .gitmodules && git -c user.name=a -c user.email=a@localhost commit -qm "add sub"`,
	]);
	expect(result.code).not.toBe(0);
	expect(result.stdout + result.stderr).toMatch(/submodule.*(\.gitmodules|sub)/);
	userGit(v, ["sub"]);
	expect(ran(marker)).toEqual([]);
});

test("a .git file naming a git folder the agent made elsewhere in the checkout runs nothing at the user's next git", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-gitfile");
	const { result } = await v.agent([
		[
			"mkdir -p lib && cd lib && git init -q --separate-git-dir ../.cache-git",
			`git config core.fsmonitor "touch ${marker}-fsmonitor; false"`,
			"echo x > x.txt && git add -A && git -c user.name=a -c user.email=a@localhost commit -qm s && echo y > x.txt",
		].join(" && "),
	]);
	expect(result.code).toBe(0);
	userGit(v, ["lib", ".cache-git"]);
	expect(ran(marker)).toEqual([]);
	expect(readFileSync(join(v.repo, "lib", "x.txt"), "utf8")).toBe("y\n");
});

test("a git folder planted under another name (a bare repository with a work tree) runs nothing when the user's git runs in it", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-bare");
	const { result } = await v.agent([
		[
			"git init -q --bare tools/cache",
			"git --git-dir=tools/cache config core.bare false",
			"git --git-dir=tools/cache config core.worktree ..",
			`git --git-dir=tools/cache config core.fsmonitor "touch ${marker}; false"`,
		].join(" && "),
	]);
	expect(result.code).toBe(0);
	userGit(v, ["tools/cache", "tools"]);
	expect(ran(marker)).toEqual([]);
});

test("a nested repository in a task's worktree reaches the integration as files, and runs nothing at the user's next git", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-worktree-nested");
	const { result } = await v.agent([nestedRepository("gen", marker)], { workspace: "worktree" });
	expect(result.code).toBe(0);
	const branch = v
		.git(["for-each-ref", "--format=%(refname:short)", "refs/heads/crew/"])
		.split("\n")
		.find((name) => name !== "");
	expect(branch).toBeDefined();
	// Its files as files, not a gitlink to a repository nobody has.
	const tree = v.git(["ls-tree", "-r", String(branch), "gen"]);
	expect(tree).toMatch(/^100644 blob \w+\tgen\/f\.txt$/m);
	expect(tree).not.toMatch(/^160000/m);
	v.git(["merge", "-q", String(branch)]);
	userGit(v, ["gen"]);
	expect(ran(marker)).toEqual([]);
});

test("a repository of the user's own inside the checkout keeps its config from the agent", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-vendored");
	const vendored = join(v.repo, "vendor", "lib");
	mkdirSync(vendored, { recursive: true });
	v.git(["init", "-q"], vendored);
	writeFileSync(join(vendored, "lib.txt"), "lib\n");
	v.git(["add", "-A"], vendored);
	v.git(["commit", "-qm", "lib"], vendored);
	await v.agent([
		`git -C vendor/lib config core.fsmonitor "touch ${marker}-fsmonitor; false"`,
		`mkdir -p vendor/lib/.git/hooks; printf '#!/bin/sh\\ntouch ${marker}\\n' > vendor/lib/.git/hooks/post-commit; chmod +x vendor/lib/.git/hooks/post-commit`,
		`mv vendor/lib/.git vendor/lib/.git-old && git init -q vendor/lib && git -C vendor/lib config core.fsmonitor "touch ${marker}-fsmonitor; false"`,
		"echo tried",
	]);
	userGit(v, ["vendor/lib"]);
	v.git(["commit", "-q", "--allow-empty", "-m", "mine"], vendored);
	expect(ran(marker)).toEqual([]);
	expect(v.git(["log", "--format=%s"], vendored)).toBe("mine\nlib");
});

test("alternates planted in the shared checkout's objects are taken out and named", async () => {
	const v = victim();
	const { result } = await v.agent([
		"mkdir -p /tmp/elsewhere/objects && echo /tmp/elsewhere/objects > .git/objects/info/alternates && echo planted",
	]);
	expect(existsSync(join(v.repo, ".git", "objects", "info", "alternates"))).toBe(false);
	expect(result.code).not.toBe(0);
	expect(result.stdout + result.stderr).toContain("objects/info/alternates");
});

test("a config file the repository's config includes from the work tree cannot be written by the agent", async () => {
	const v = victim();
	const marker = join(v.base, "pwned-include");
	writeFileSync(join(v.repo, ".gitconfig.project"), "[user]\n\tname = project\n");
	v.git(["add", ".gitconfig.project"]);
	v.git(["commit", "-qm", "shared config"]);
	v.git(["config", "include.path", "../.gitconfig.project"]);
	await v.agent([`printf '[core]\\n\\tfsmonitor = "touch ${marker}; false"\\n' >> .gitconfig.project; echo tried`]);
	userGit(v);
	expect(ran(marker)).toEqual([]);
});
