// A runner's sandbox: each attempt's command wrapped in bubblewrap, and a network gate, as its request asks.

import { existsSync, readdirSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { crewPackageDir } from "../../config/crew-package.js";
import { userConfigDir } from "../../config/resource-layers.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { CREW_STATE } from "../../core/sandbox.js";
import { type HostPort, isConfined } from "../../core/sandbox-level.js";
import { gitMetadata, undoCreated } from "../../workspace/git-metadata.js";
import type { TaskRequest } from "../worker-runtime.js";
import { type Command, confine, findBwrap, findSocat, NO_SANDBOX, secretPaths } from "./confine.js";
import { type GateWatch, NetworkGate } from "./network-gate.js";
import { PrivateRefs } from "./private-refs.js";

/** A command to spawn, the variables to set on top of its environment, and what to release when it has ended. */
export interface Launch extends Command {
	readonly env: Readonly<Record<string, string>>;
	/**
	 * Releases what the launch holds once its processes have ended, and undoes what they did to git
	 * metadata that is not theirs: what would make git run a program or read another repository
	 * later, and other tasks' branches. Named in the answer, empty when there was none.
	 */
	close(): Promise<string[]>;
}

/** The failure of an attempt whose processes planted what `Launch.close` removed: not worth a retry. */
export function plantedFailure(planted: readonly string[]): { readonly message: string; readonly retryable: false } {
	return {
		message: `changed git metadata that is not its own (what would run a program or read another repository outside the sandbox, or another task's branch), which crew undid: ${planted.join(", ")}`,
		retryable: false,
	};
}

/** A launch that holds nothing: its command as it is. */
export function unconfined(command: Command): Launch {
	return { ...command, env: {}, close: async () => [] };
}

/** What a confined process needs beyond its workspace, as its runtime knows it. */
export interface Needs {
	/** Folders and files it writes: an agent CLI's own state. */
	readonly writable?: readonly string[];
	/** Folders it reads that may be out of sight: the one its program is in, when that is under /tmp. */
	readonly readable?: readonly string[];
	/**
	 * `host`: the network as it is; `none`: a loopback of its own; else a loopback of its own and a
	 * gate to the hosts `allow` names, which tells of what it refused and could not reach.
	 */
	readonly network: "host" | "none" | (GateWatch & { readonly allow: readonly HostPort[] });
	/** Its environment: its `HOME` is the home whose secrets are hidden. */
	readonly env: NodeJS.ProcessEnv;
}

/**
 * One runner's sandbox: the bubblewrap of this machine, looked for once, confining each attempt's
 * processes as its request asks. Shared by a runner's runtimes, so a check and a setup hook are
 * confined as their agent is.
 */
export class Sandbox {
	readonly #env: NodeJS.ProcessEnv;
	#tools: { readonly bwrap: string | null; readonly socat: string | null } | undefined;

	constructor(env: NodeJS.ProcessEnv = process.env) {
		this.#env = env;
	}

	/** Whether this machine can confine a process: a working bubblewrap, and socat for agents' gates, are on PATH. */
	available(): boolean {
		const { bwrap, socat } = this.#found();
		return bwrap !== null && socat !== null;
	}

	/**
	 * `command` as it is started for `request`: unchanged when its sandbox is off, else under
	 * bubblewrap with its workspace (read-only for a read-only agent), what `needs` names, the
	 * attempt's own files and crew's own package (its bundled pi) in sight, secrets and crew's own
	 * folders hidden, a /tmp of its own, and the network `needs` says. Throws when the request
	 * asks for a sandbox this machine cannot give.
	 */
	async wrap(request: TaskRequest, command: Command, needs: Needs): Promise<Launch> {
		const asked = request.sandbox;
		if (!asked || !isConfined(asked)) return unconfined(command);
		const { bwrap, socat } = this.#found();
		const home = needs.env.HOME || this.#env.HOME || homedir();
		const git = gitMetadata(request.cwd, !asked.readOnly);
		const refs = git?.refFolders.length ? PrivateRefs.make(git.refFolders) : undefined;
		const undo = async () => [...(git ? undoCreated(git, request.cwd) : []), ...(refs?.settle() ?? [])];
		const spec = {
			workspace: request.cwd,
			readOnlyWorkspace: asked.readOnly,
			writable: [...(needs.writable ?? []), ...(git?.writable ?? [])],
			substitutes: refs?.substitutes ?? [],
			readOnly: git?.readOnly ?? [],
			readable: [
				crewPackageDir(),
				...asked.show,
				...(needs.readable ?? []),
				dirname(request.promptFile),
				request.artifactDir,
				...resourcesIn(asked.resources),
				...resolverIn(RUN_FOLDERS),
			],
			hidden: [
				...secretPaths(home),
				...hostSockets(this.#env, needs.env),
				userConfigDir(this.#env),
				userConfigDir(needs.env),
				...asked.hide,
			],
		};
		// The host's TMPDIR may be a folder the process cannot write; its own /tmp it can.
		const tmp = { TMPDIR: "/tmp" };
		const { network } = needs;
		let gate: NetworkGate | undefined;
		try {
			if (typeof network === "string") {
				return { ...confine(bwrap, { ...spec, network }, command), env: tmp, close: undo };
			}
			if (socat === null)
				throw new CrewError(ErrorCode.InvalidInput, `this task asks for a sandbox, and ${NO_SANDBOX}`);
			const opened = await NetworkGate.open(network.allow, network);
			gate = opened;
			const confined = confine(bwrap, { ...spec, network: { gate: opened.folder } }, opened.wrap(socat, command));
			const close = async () => {
				await opened.close();
				return undo();
			};
			return { ...confined, env: { ...tmp, ...opened.env() }, close };
		} catch (error) {
			await gate?.close();
			await undo();
			throw error;
		}
	}

	#found(): { readonly bwrap: string | null; readonly socat: string | null } {
		this.#tools ??= { bwrap: findBwrap(this.#env.PATH), socat: findSocat(this.#env.PATH) };
		return this.#tools;
	}
}

/** What of crew's folder `dir` in a repository is not its state: the resources a task sees. */
function resourcesIn(dir: string | undefined): string[] {
	if (dir === undefined || !existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((name) => !CREW_STATE.includes(name))
		.map((name) => join(dir, name));
}

/** Where a machine keeps its services' sockets (session bus, ssh-agent, docker, systemd): none is a task's to reach. */
const RUN_FOLDERS = ["/run", "/var/run"];

/** The folders of host sockets to hide: the machine's, and the user's runtime folder as each environment names it. */
function hostSockets(...envs: NodeJS.ProcessEnv[]): string[] {
	const runtime = envs.map((env) => env.XDG_RUNTIME_DIR).filter((dir): dir is string => Boolean(dir));
	return [...RUN_FOLDERS, ...runtime];
}

/** The resolver configuration, where `/etc/resolv.conf` leads into one of `folders` (systemd-resolved's): shown again, so names still resolve. */
function resolverIn(folders: readonly string[]): string[] {
	const file = "/etc/resolv.conf";
	if (!existsSync(file)) return [];
	const real = realpathSync(file);
	return folders.some((folder) => real.startsWith(`${folder}/`)) ? [real] : [];
}
