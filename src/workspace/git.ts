// Running git: on crew's own account with fixed settings, or as the user would, with errors in git's words.

import { execFile, spawnSync } from "node:child_process";
import { CrewError, ErrorCode } from "../core/errors.js";
import { timed } from "../core/timings.js";

export interface GitResult {
	readonly code: number;
	readonly stdout: string;
	readonly stderr: string;
}

/**
 * The settings of every git command crew runs on its own account: the worktrees it adds, its
 * commits of the agents' work, its merges of task branches, a worker's checkouts. They hold
 * whatever the user's git config says, since a failure here would come after the agent's work
 * is done and paid for:
 * - crew's own author, and no signing: crew holds no key and must not ask for one;
 * - no hooks at all, by a hooks folder that cannot exist: hooks automate the user's own commits
 *   and checkouts, and `--no-verify` would still run post-checkout (of `worktree add`),
 *   post-commit, post-merge and reference-transaction hooks, which can fail or stall a command.
 *   What a new worktree needs is the user's `worktree.setup` hook;
 * - merges that fast-forward when they can and commit otherwise, without checking signatures;
 * - patches in git's plain format (`a/` and `b/` prefixes, no colour), which `git apply` reads;
 * - no file system monitor and no pager: programs a repository's config could name, which crew's
 *   commands never need.
 * The rest of the user's config applies: credentials, filters such as LFS, safe directories.
 */
const OWN_ACCOUNT = [
	["core.fsmonitor", "false"],
	["core.pager", "cat"],
	["user.name", "crew"],
	["user.email", "crew@localhost"],
	["commit.gpgSign", "false"],
	["core.hooksPath", "/dev/null"],
	["merge.ff", "true"],
	["merge.verifySignatures", "false"],
	["diff.noprefix", "false"],
	["diff.mnemonicPrefix", "false"],
	["color.ui", "never"],
	["color.diff", "never"],
].flatMap(([key, value]) => ["-c", `${key}=${value}`]);

/**
 * Runs git on crew's own account (see OWN_ACCOUNT) in `cwd` without a prompt or a pager, `input`
 * on its stdin; resolves with its exit code rather than throwing.
 */
export function gitRun(cwd: string, args: readonly string[], input?: string): Promise<GitResult> {
	return spawnGit(cwd, [...OWN_ACCOUNT, ...args], input);
}

/**
 * `gitRun` with variables of git's own set, as an index file of its own (`GIT_INDEX_FILE`) to read
 * a work tree into a tree without touching the index of whoever works there.
 */
export function gitRunWith(
	cwd: string,
	args: readonly string[],
	env: Readonly<Record<string, string>>,
): Promise<GitResult> {
	return spawnGit(cwd, [...OWN_ACCOUNT, ...args], undefined, env);
}

/** `gitRun`, waiting for git: for the few questions crew asks before anything else can go on. */
export function gitRunSync(cwd: string, args: readonly string[]): GitResult {
	const result = timed(gitPhase(args), () =>
		spawnSync("git", [...OWN_ACCOUNT, ...args], { cwd, encoding: "utf8", env: gitEnv() }),
	);
	return {
		code: result.status ?? 1,
		stdout: result.stdout ?? "",
		stderr: result.stderr ?? result.error?.message ?? "",
	};
}

/**
 * Runs git as the user would run it, with their author, signing and hooks: for what crew does in
 * the user's own branch at their request (`crew merge`).
 */
export function userGitRun(cwd: string, args: readonly string[]): Promise<GitResult> {
	return spawnGit(cwd, args);
}

/** Runs git on crew's own account and returns its stdout; a failure is an error in git's own words. */
export async function git(cwd: string, args: readonly string[], input?: string): Promise<string> {
	const result = await gitRun(cwd, args, input);
	if (result.code !== 0) throw gitError(cwd, args, result);
	return result.stdout;
}

/** The error of a git command that failed: the command, where, and the last lines git said. */
export function gitError(cwd: string, args: readonly string[], result: GitResult): CrewError {
	const said = (result.stderr || result.stdout).trim().split("\n").slice(-3).join("; ");
	return new CrewError(ErrorCode.Runtime, `git ${args.join(" ")} failed in ${cwd}: ${said}`);
}

/** This process's environment, with no prompt for credentials and no pager. */
function gitEnv(): NodeJS.ProcessEnv {
	return { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat" };
}

function spawnGit(
	cwd: string,
	args: readonly string[],
	input?: string,
	env: Readonly<Record<string, string>> = {},
): Promise<GitResult> {
	return timed(
		gitPhase(args),
		() =>
			new Promise((resolve) => {
				const child = execFile(
					"git",
					args as string[],
					{ cwd, maxBuffer: 64 * 1024 * 1024, env: { ...gitEnv(), ...env } },
					(error, stdout, stderr) => {
						const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
						resolve({ code, stdout, stderr });
					},
				);
				// git may exit before it has read its input; its exit code and stderr say why.
				child.stdin?.on("error", () => undefined);
				child.stdin?.end(input ?? "");
			}),
	);
}

/** A git call's phase in CREW_TIMINGS: `git` and its subcommand, past the options before it. */
function gitPhase(args: readonly string[]): string {
	const command = args.find((arg, i) => !arg.startsWith("-") && args[i - 1] !== "-c");
	return `git ${command ?? ""}`.trim();
}
