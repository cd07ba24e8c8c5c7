import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { gitFolders, madeSince } from "../../src/workspace/git-surfaces/git-folders.js";
import { GitWatch } from "../../src/workspace/git-surfaces/git-watch.js";
import { submoduleState } from "../../src/workspace/git-surfaces/submodule-changes.js";

function workspace(): string {
	const dir = mkdtempSync(join(tmpdir(), "crew-git-surfaces-"));
	execFileSync("git", ["init", "-q", dir]);
	return dir;
}

const init = (dir: string, ...args: string[]) => execFileSync("git", ["init", "-q", ...args, dir]);

test("every git folder below the root is found, in ignored and unreadable folders too, but the root's own and crew's", () => {
	const root = workspace();
	init(join(root, "a"));
	mkdirSync(join(root, "node_modules", "x"), { recursive: true });
	writeFileSync(join(root, ".gitignore"), "node_modules/\n");
	writeFileSync(join(root, "node_modules", "x", ".git"), "gitdir: ../../.stash\n");
	init(join(root, "tools", "cache"), "--bare");
	mkdirSync(join(root, "linked"));
	symlinkSync(join(root, "a", ".git"), join(root, "linked", ".git"));
	mkdirSync(join(root, "locked", "deep"), { recursive: true });
	init(join(root, "locked", "deep"));
	chmodSync(join(root, "locked"), 0o000);
	mkdirSync(join(root, ".crew", "worktrees", "w"), { recursive: true });
	writeFileSync(join(root, ".crew", "worktrees", "w", ".git"), "gitdir: x\n");
	expect(gitFolders(root).found.map(({ path, kind }) => `${kind} ${path}`)).toEqual([
		"folder a/.git",
		"link linked/.git",
		"folder locked/deep/.git",
		"file node_modules/x/.git",
		"bare tools/cache",
	]);
});

test("a git folder put in the place of one that was there counts as made; one left as it was does not", () => {
	const root = workspace();
	init(join(root, "kept"));
	init(join(root, "swapped"));
	const before = gitFolders(root).found;
	renameSync(join(root, "swapped", ".git"), join(root, "old-git"));
	init(join(root, "swapped"));
	init(join(root, "new"));
	expect(madeSince(before, gitFolders(root).found).map(({ path }) => path)).toEqual([
		"new/.git",
		"old-git",
		"swapped/.git",
	]);
});

test("a walk that reads again only the folders changed since an earlier one finds what was made in them, and .git files changed in place", () => {
	const root = workspace();
	mkdirSync(join(root, "deep", "a", "b"), { recursive: true });
	mkdirSync(join(root, "sub"));
	writeFileSync(join(root, "sub", ".git"), "gitdir: ../x\n");
	const first = gitFolders(root);
	// As if the earlier walk were well after every folder's last change, so that each unchanged one is taken from it.
	const earlier = { listing: first.listing, at: Date.now() + 10_000 };
	init(join(root, "deep", "a", "b"));
	writeFileSync(join(root, "sub", ".git"), "gitdir: ../elsewhere\n");
	const again = gitFolders(root, earlier);
	expect(madeSince(first.found, again.found).map(({ path }) => path)).toEqual(["deep/a/b/.git", "sub/.git"]);
	expect(gitFolders(root, { listing: again.listing, at: Date.now() + 10_000 }).found).toEqual(again.found);
});

test("attempts sharing a workspace have what they left set aside when the last of them ends, not before", async () => {
	const root = workspace();
	const aside = mkdtempSync(join(tmpdir(), "crew-aside-"));
	const watch = new GitWatch();
	const first = await watch.enter(root, false);
	const second = await watch.enter(root, false);
	init(join(root, "made-by-second"));
	const firstLeft = await first.leave(join(aside, "1"));
	expect(firstLeft.setAside).toEqual([]);
	expect(existsSync(join(root, "made-by-second", ".git"))).toBe(true);
	const secondLeft = await second.leave(join(aside, "2"));
	expect(secondLeft).toMatchObject({
		setAside: [{ path: "made-by-second/.git", kind: "folder", movedTo: join(aside, "2", "made-by-second", ".git") }],
		shared: true,
	});
	expect(existsSync(join(root, "made-by-second", ".git"))).toBe(false);
	expect(existsSync(join(aside, "2", "made-by-second", ".git", "HEAD"))).toBe(true);
});

test("a submodule a confined attempt adds, in a commit or only in its .gitmodules, is named at its end", async () => {
	const root = workspace();
	const git = (...args: string[]) =>
		execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: root, encoding: "utf8" });
	git("commit", "-q", "--allow-empty", "-m", "base");
	const watch = new GitWatch();
	const stay = await watch.enter(root, true);
	const head = git("rev-parse", "HEAD").trim();
	git("update-index", "--add", "--cacheinfo", `160000,${head},sub`);
	git("commit", "-q", "-m", "gitlink");
	writeFileSync(join(root, ".gitmodules"), '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n');
	const left = await stay.leave(mkdtempSync(join(tmpdir(), "crew-aside-")));
	expect(left.submodules).toEqual([".gitmodules", "sub"]);
});

test("a checkout's HEAD is read from a loose ref, a packed one, or none before the first commit", async () => {
	const root = workspace();
	expect((await submoduleState(root)).head).toBeUndefined();
	const git = (...args: string[]) =>
		execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: root, encoding: "utf8" });
	git("commit", "-q", "--allow-empty", "-m", "base");
	const head = git("rev-parse", "HEAD").trim();
	expect((await submoduleState(root)).head).toBe(head);
	git("pack-refs", "--all");
	expect(
		existsSync(join(root, ".git", "refs", "heads", "main")) ||
			existsSync(join(root, ".git", "refs", "heads", "master")),
	).toBe(false);
	expect((await submoduleState(root)).head).toBe(head);
});

test("a folder whose .git holds no HEAD is no checkout: its submodules read as none, and a task's end there is not refused", async () => {
	const root = mkdtempSync(join(tmpdir(), "crew-git-surfaces-"));
	mkdirSync(join(root, ".git"));
	expect(await submoduleState(root)).toEqual({ head: undefined, index: undefined, gitmodules: undefined });
	const stay = await new GitWatch().enter(root, true);
	const left = await stay.leave(mkdtempSync(join(tmpdir(), "crew-aside-")));
	expect(left.submodules).toEqual([]);
});
