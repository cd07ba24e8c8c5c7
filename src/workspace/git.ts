import { execFile } from "node:child_process";
import { CrewError, ErrorCode } from "../core/errors.js";

export interface GitResult {
	readonly code: number;
	readonly stdout: string;
	readonly stderr: string;
}

/** crew commits on the agents' behalf under its own name, whatever the user's git config says. */
export const CREW_AUTHOR = ["-c", "user.name=crew", "-c", "user.email=crew@localhost"] as const;

/**
 * Runs git in `cwd` without a prompt or a pager, `input` on its stdin; resolves with its exit code
 * rather than throwing.
 */
export function gitRun(cwd: string, args: readonly string[], input?: string): Promise<GitResult> {
	return new Promise((resolve) => {
		const child = execFile(
			"git",
			args as string[],
			{ cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat" } },
			(error, stdout, stderr) => {
				const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
				resolve({ code, stdout, stderr });
			},
		);
		// git may exit before it has read its input; its exit code and stderr say why.
		child.stdin?.on("error", () => undefined);
		child.stdin?.end(input ?? "");
	});
}

/** Runs git and returns its stdout; a failure is an error naming the command and git's own words. */
export async function git(cwd: string, args: readonly string[], input?: string): Promise<string> {
	const result = await gitRun(cwd, args, input);
	if (result.code !== 0) {
		const said = (result.stderr || result.stdout).trim().split("\n").slice(-3).join("; ");
		throw new CrewError(ErrorCode.Runtime, `git ${args.join(" ")} failed in ${cwd}: ${said}`);
	}
	return result.stdout;
}
