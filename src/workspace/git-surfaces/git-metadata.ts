// The git metadata a confined process sees: what stays read-only, what is writable, what must not appear.

import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { configIncludes } from "./config-includes.js";
import type { GitFolder } from "./git-folders.js";

/**
 * The git metadata of a checkout as a confined process must find it. Whatever decides which
 * programs git runs (config, hooks, attributes' and submodules' settings, the files that point git
 * at another repository) stays read-only, since crew's own git and the user's run it later,
 * unconfined; what a commit of the checkout's own work needs stays writable.
 */
export interface GitMetadata {
	/** Kept read-only inside writable folders: every one of these that exists. */
	readonly readOnly: readonly string[];
	/**
	 * Bound where they are, writable: a worktree's own folder and the objects; a checkout's own git
	 * folder, which as a mount point cannot be moved aside for another.
	 */
	readonly writable: readonly string[];
	/** Those that did not exist: created by a confined process, they would redirect git or run a program. */
	readonly absent: readonly string[];
	/**
	 * The folders of a worktree's branch and of its log, which hold the other tasks' of its run too:
	 * each to be shown as a private copy holding only `own`, so that no task writes another's.
	 */
	readonly refFolders: readonly RefFolder[];
}

/** A folder of refs (or of their logs, `log`) and the file in it that is the worktree's own. */
export interface RefFolder {
	readonly folder: string;
	readonly own: string;
	readonly log: boolean;
}

/**
 * What in a git folder decides what git runs, or which repository it reads (`commondir`, `gitdir`,
 * other worktrees' folders, which say the same for theirs, the objects' alternates and the
 * remotes of old, which name other repositories).
 */
const DECIDES = [
	"config",
	"config.worktree",
	"hooks",
	"info",
	"modules",
	"commondir",
	"gitdir",
	"worktrees",
	"objects/info/alternates",
	"objects/info/http-alternates",
	"remotes",
	"branches",
];

/**
 * The metadata of the checkout at `workspace` (a repository's root, or a worktree whose `.git` is a
 * link to its folder), or undefined when `workspace` is not one; nothing writable unless `commits`.
 * Folders a worktree's commit must write are made now, as git would make them, so they can be bound.
 * With it, the same of the git folders `nested` below it (the repositories of the user's own
 * there), and the files in the workspace that the repository's config includes.
 */
export function gitMetadata(
	workspace: string,
	commits: boolean,
	nested: readonly GitFolder[] = [],
): GitMetadata | undefined {
	const found = gitFoldersOf(workspace);
	if (found === undefined) return undefined;
	const { link, isLink, gitDir, commonDir } = found;
	const folders = [...new Set([gitDir, commonDir])];
	const nestedFolders = nested
		.filter((n) => n.kind === "folder" || n.kind === "bare")
		.map((n) => join(workspace, n.path));
	const nestedLinks = nested.filter((n) => n.kind === "file" || n.kind === "link").map((n) => join(workspace, n.path));
	const included = [join(commonDir, "config"), join(gitDir, "config.worktree")]
		.flatMap(configIncludes)
		.filter((path) => path.startsWith(`${workspace}/`));
	const decides = [
		...(isLink ? [link] : []),
		...[...folders, ...nestedFolders].flatMap((folder) => DECIDES.map((name) => join(folder, name))),
		...nestedLinks,
		...included,
	];
	// A nested git folder bound where it is cannot be moved aside for another, as the checkout's cannot.
	const writable: string[] = commits ? nestedFolders : [];
	const refFolders: RefFolder[] = [];
	if (commits && !isLink) writable.push(gitDir);
	if (commits && isLink) {
		writable.push(gitDir, join(commonDir, "objects"));
		const branch = /^ref: (refs\/heads\/.+)$/m.exec(readFileSync(join(gitDir, "HEAD"), "utf8"))?.[1];
		if (branch) {
			for (const [root, log] of [
				[commonDir, false],
				[join(commonDir, "logs"), true],
			] as const) {
				const own = join(root, branch);
				mkdirSync(dirname(own), { recursive: true });
				refFolders.push({ folder: dirname(own), own, log });
			}
		}
	}
	return {
		readOnly: decides.filter((path) => existsSync(path)),
		writable,
		absent: decides.filter((path) => !existsSync(path)),
		refFolders,
	};
}

/**
 * Removes what a confined process created of `metadata.absent` (its read-only paths it could not
 * change), and names each, relative to `workspace` where it is inside it.
 */
export function undoCreated(metadata: GitMetadata, workspace: string): string[] {
	const created = metadata.absent.filter((path) => existsSync(path));
	for (const path of created) rmSync(path, { recursive: true, force: true });
	return created.map((path) => (path.startsWith(`${workspace}/`) ? path.slice(workspace.length + 1) : path));
}

/**
 * The git folders of the checkout at `workspace`: its own (`gitDir`, which its `.git` names when
 * that is a link) and the repository's (`commonDir`, which a worktree's names); undefined when
 * `workspace` is not a checkout.
 */
export function gitFoldersOf(
	workspace: string,
):
	| { readonly link: string; readonly isLink: boolean; readonly gitDir: string; readonly commonDir: string }
	| undefined {
	const link = join(workspace, ".git");
	if (!existsSync(link)) return undefined;
	const isLink = lstatSync(link).isFile();
	const gitDir = isLink ? linkTarget(link, workspace) : link;
	if (gitDir === undefined) return undefined;
	const commonFile = join(gitDir, "commondir");
	const commonDir = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, "utf8").trim()) : gitDir;
	return { link, isLink, gitDir, commonDir };
}

/** The folder a worktree's `.git` link names, if it names one. */
function linkTarget(link: string, workspace: string): string | undefined {
	const named = /^gitdir: (.+)$/m.exec(readFileSync(link, "utf8"))?.[1]?.trim();
	return named ? resolve(workspace, named) : undefined;
}
