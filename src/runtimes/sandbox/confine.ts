// Bubblewrap confinement: what a process may see and write, the secrets hidden, and the `bwrap` arguments.

import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { GATE_MOUNT } from "./network-gate.js";

/** Why this machine has no sandbox, and how to get one: said by errors, warnings and `crew doctor`. */
export const NO_SANDBOX =
	process.platform === "linux"
		? "bubblewrap (bwrap) and socat are not both on PATH and working: install them (Debian/Ubuntu: apt-get install bubblewrap socat)"
		: `crew has no sandbox on ${process.platform}`;

/** What one confined process may see and do. */
export interface SandboxSpec {
	/** The folder the process works in: writable, unless `readOnlyWorkspace`. */
	readonly workspace: string;
	readonly readOnlyWorkspace: boolean;
	/** Folders and files it may write besides its workspace (an agent CLI's own state). */
	readonly writable: readonly string[];
	/**
	 * Folders it reads that could be out of its sight: under /tmp, which it gets a new one of, or
	 * under a hidden folder (the attempt's own files under crew's).
	 */
	readonly readable: readonly string[];
	/** Folders and files inside writable ones that stay read-only. */
	readonly readOnly?: readonly string[];
	/** Folders shown, writable, in place of others: private copies it changes instead of the originals. */
	readonly substitutes?: readonly Substitute[];
	/** Folders and files it must not see at all (secrets, crew's store); what is below them and named above shows again. */
	readonly hidden: readonly string[];
	/**
	 * `none`: no network but a loopback of its own; `gate`: the same, with the folder of a
	 * `NetworkGate`'s sockets shown at `GATE_MOUNT`, its only way out.
	 */
	readonly network: "host" | "none" | { readonly gate: string };
}

/** A folder (`source`) shown where another one is (`target`). */
export interface Substitute {
	readonly source: string;
	readonly target: string;
}

/** A program and its arguments, as spawned. */
export interface Command {
	readonly file: string;
	readonly args: readonly string[];
}

/**
 * The places in the user's home that hold credentials or a record of what was typed, which no task
 * needs: hidden at every level but off (a folder as an empty one, a file as an empty file). Agent
 * CLIs' own credentials (e.g. ~/.codex, ~/.claude) stay, as their agents need them.
 */
export function secretPaths(home: string = homedir()): string[] {
	return [
		// Keys and keyrings.
		".ssh",
		".gnupg",
		".password-store",
		".local/share/keyrings",
		".vault-token",
		// git, and the forges' command-line tools.
		".git-credentials",
		".config/git/credentials",
		".netrc",
		".config/gh",
		".config/glab-cli",
		".config/hub",
		// Package registries.
		".npmrc",
		".yarnrc",
		".yarnrc.yml",
		".pypirc",
		".cargo/credentials",
		".cargo/credentials.toml",
		".gem/credentials",
		".m2/settings.xml",
		".gradle/gradle.properties",
		// Containers and clouds.
		".docker",
		".kube",
		".aws",
		".config/gcloud",
		".azure",
		".terraform.d",
		".s3cfg",
		".boto",
		".config/doctl",
		// Shells' and interpreters' histories.
		".bash_history",
		".zsh_history",
		".local/share/fish",
		".python_history",
		".node_repl_history",
		".psql_history",
		".mysql_history",
		".sqlite_history",
		".lesshst",
		".viminfo",
		// Browsers' profiles.
		".mozilla",
		".config/google-chrome",
		".config/chromium",
		".config/BraveSoftware",
		".config/microsoft-edge",
	].map((path) => join(home, path));
}

/**
 * The sandbox is bubblewrap, run directly: it is a Debian package, adds ~5 ms to starting a
 * process, confines each task with its own mounts (crew runs tasks with different needs side by
 * side) and keeps the process in crew's process group, so crew's signals and its proof of who it
 * started still hold. Anthropic's sandbox-runtime, built on it, needs Node 22.12, keeps one
 * configuration per process and took 68–86 ms per command here. Only Linux has bubblewrap.
 *
 * `bwrap`'s arguments for `command` under `spec`: the whole file system read-only, then /dev,
 * /proc and a private /tmp, then each folder named, a parent before what is below it (each mount
 * covers what was there): a hidden folder under an empty one, made read-only last (bwrap cannot
 * make the mount points below it otherwise), a hidden file under /dev/null. No new session: the
 * process stays in the group crew signals. Nor `--die-with-parent`: bwrap dies at the group's
 * SIGTERM, which would then SIGKILL its child at once; without it the child gets its grace, and
 * outlives a runner that dies, as an unconfined worker does.
 */
export function bwrapArgs(spec: SandboxSpec, command: Command): string[] {
	// Its own process and IPC namespaces: the host's processes are neither seen nor signalled (a
	// reaper of bwrap's is their init, and crew's group signals still reach every process).
	const args = [
		"--unshare-pid",
		"--unshare-ipc",
		"--ro-bind",
		"/",
		"/",
		"--dev",
		"/dev",
		"--proc",
		"/proc",
		"--tmpfs",
		"/tmp",
	];
	if (typeof spec.network === "object") args.push("--ro-bind", spec.network.gate, GATE_MOUNT);
	const workspace = resolve(spec.workspace);
	// A folder reached through a symbolic link is mounted where the link leads: bwrap cannot make a mount point inside a link.
	const real = (path: string) => (existsSync(path) ? realpathSync(path) : resolve(path));
	const mounts: { path: string; kind: "read" | "write" | "hide"; source?: string }[] = [
		...spec.readable.map((path) => ({ path: real(path), kind: "read" as const })),
		{ path: real(workspace), kind: spec.readOnlyWorkspace ? "read" : "write" },
		...spec.writable.map((path) => ({ path: real(path), kind: "write" as const })),
		...(spec.substitutes ?? []).map(({ source, target }) => ({ path: real(target), kind: "write" as const, source })),
		...(spec.readOnly ?? []).map((path) => ({ path: real(path), kind: "read" as const })),
		...spec.hidden.map((path) => ({ path: real(path), kind: "hide" as const })),
	];
	const depth = (path: string) => path.split("/").length;
	const emptied: string[] = [];
	// A stable sort: at one depth, what is named later wins.
	for (const { path, kind, source = path } of mounts.sort((a, b) => depth(a.path) - depth(b.path))) {
		if (!existsSync(path)) continue;
		if (kind === "read") args.push("--ro-bind", path, path);
		else if (kind === "write") args.push("--bind", source, path);
		else if (statSync(path).isDirectory()) {
			args.push("--tmpfs", path);
			emptied.push("--remount-ro", path);
		} else args.push("--ro-bind", "/dev/null", path);
	}
	args.push(...emptied);
	if (spec.network !== "host") args.push("--unshare-net");
	args.push("--chdir", workspace, "--", command.file, ...command.args);
	return args;
}

/**
 * The bubblewrap this machine can run, checked by confining `true` once; null when there is none
 * on PATH or it cannot make its namespaces here.
 */
export function findBwrap(path: string = process.env.PATH ?? ""): string | null {
	return findWorking(path, "bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]);
}

/**
 * The socat on PATH, which bridges a confined agent's loopback to its network gate; null when there
 * is none. Unlike bubblewrap, which a machine may forbid, a socat that is there runs: it is not
 * started to find out, as each start costs a command its time.
 */
export function findSocat(path: string = process.env.PATH ?? ""): string | null {
	const file = firstOnPath(path, "socat");
	if (file === null) return null;
	try {
		accessSync(file, constants.X_OK);
		return file;
	} catch {
		return null;
	}
}

/** The first `name` on `path`, if it runs with `args`. */
function findWorking(path: string, name: string, args: readonly string[]): string | null {
	const file = firstOnPath(path, name);
	if (file === null) return null;
	try {
		execFileSync(file, args, { stdio: "ignore", timeout: 10_000 });
		return file;
	} catch {
		return null;
	}
}

function firstOnPath(path: string, name: string): string | null {
	for (const folder of path.split(":").filter(Boolean)) {
		const file = join(folder, name);
		if (existsSync(file)) return file;
	}
	return null;
}

/** `command` confined by `spec` through `bwrap`; refuses when there is no sandbox to be had. */
export function confine(bwrap: string | null, spec: SandboxSpec, command: Command): Command {
	if (bwrap === null) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`this task asks for a sandbox, and ${NO_SANDBOX}; or give the task the sandbox level off`,
		);
	}
	return { file: bwrap, args: bwrapArgs(spec, command) };
}
