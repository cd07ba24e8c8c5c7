import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { CrewError, ErrorCode } from "../../core/errors.js";

/**
 * How far a task's processes are confined: `off`, as the user's own; `workspace`, writing only to
 * their workspace and the folders named writable, with a /tmp of their own and secrets hidden;
 * `strict`, the same without a network.
 */
export const SANDBOX_LEVELS = ["off", "workspace", "strict"] as const;
export type SandboxLevel = (typeof SANDBOX_LEVELS)[number];

/** What one confined process may see and do. */
export interface SandboxSpec {
	/** The folder the process works in: writable, unless `readOnlyWorkspace`. */
	readonly workspace: string;
	readonly readOnlyWorkspace: boolean;
	/** Folders it may write besides its workspace (an agent CLI's own state, the attempt's folder). */
	readonly writable: readonly string[];
	/** Folders and files it must not see at all (secrets, crew's store). */
	readonly hidden: readonly string[];
	/** `none`: no network but a loopback of its own. */
	readonly network: "host" | "none";
}

/** A program and its arguments, as spawned. */
export interface Command {
	readonly file: string;
	readonly args: readonly string[];
}

/**
 * Folders of the user's home that hold credentials no task needs: hidden at every level but off.
 * Agent CLIs' own credentials (e.g. ~/.codex, ~/.claude) stay, as their agents need them.
 */
export function secretFolders(home: string = homedir()): string[] {
	return [
		".ssh",
		".aws",
		".gnupg",
		".config/gcloud",
		".azure",
		".kube",
		".docker",
		".mozilla",
		".config/google-chrome",
		".config/chromium",
		".config/BraveSoftware",
		".config/microsoft-edge",
	].map((folder) => join(home, folder));
}

/**
 * The sandbox is bubblewrap, run directly: it is a Debian package, adds ~5 ms to starting a
 * process, confines each task with its own mounts (crew runs tasks with different needs side by
 * side) and keeps the process in crew's process group, so crew's signals and its proof of who it
 * started still hold. Anthropic's sandbox-runtime, built on it, needs Node 22.12, keeps one
 * configuration per process and took 68–86 ms per command here. Only Linux has bubblewrap.
 *
 * `bwrap`'s arguments for `command` under `spec`: the whole file system read-only, then /dev,
 * /proc and a private /tmp, then what is writable, then what is hidden (a folder under an empty
 * read-only one, a file under /dev/null), each later mount over the earlier ones. No new session:
 * the process stays in the group crew signals.
 */
export function bwrapArgs(spec: SandboxSpec, command: Command): string[] {
	const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
	const workspace = resolve(spec.workspace);
	args.push(spec.readOnlyWorkspace ? "--ro-bind" : "--bind", workspace, workspace);
	for (const folder of spec.writable.map((path) => resolve(path))) {
		if (existsSync(folder)) args.push("--bind", folder, folder);
	}
	for (const path of spec.hidden.map((hidden) => resolve(hidden))) {
		if (!existsSync(path)) continue;
		if (statSync(path).isDirectory()) args.push("--tmpfs", path, "--remount-ro", path);
		else args.push("--ro-bind", "/dev/null", path);
	}
	if (spec.network === "none") args.push("--unshare-net");
	args.push("--die-with-parent", "--chdir", workspace, "--", command.file, ...command.args);
	return args;
}

/**
 * The bubblewrap this machine can run, checked by confining `true` once; null when there is none
 * on PATH or it cannot make its namespaces here.
 */
export function findBwrap(path: string = process.env.PATH ?? ""): string | null {
	for (const folder of path.split(":").filter(Boolean)) {
		const file = join(folder, "bwrap");
		if (!existsSync(file)) continue;
		try {
			execFileSync(file, ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"], {
				stdio: "ignore",
				timeout: 10_000,
			});
			return file;
		} catch {
			return null;
		}
	}
	return null;
}

/** `command` confined by `spec` through `bwrap`; refuses when there is no sandbox to be had. */
export function confine(bwrap: string | null, spec: SandboxSpec, command: Command): Command {
	if (bwrap === null) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`this task asks for a sandbox, and ${process.platform === "linux" ? "no working bubblewrap (bwrap) is on PATH: install it (Debian/Ubuntu: apt-get install bubblewrap)" : `crew has none on ${process.platform}`}, or give the task the sandbox level off`,
		);
	}
	return { file: bwrap, args: bwrapArgs(spec, command) };
}
