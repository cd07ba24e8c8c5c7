// A runner's sandbox: each attempt's command wrapped in bubblewrap, and a network gate, as its request asks.

import { existsSync, readdirSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { crewPackageDir } from "../../config/crew-package.js";
import { userConfigDir } from "../../config/resource-layers.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import type { SetAside } from "../../core/records.js";
import { CREW_STATE } from "../../core/sandbox.js";
import { type AttemptSandbox, type CachesRecord, type HostPort, isConfined } from "../../core/sandbox-level.js";
import { timed } from "../../core/timings.js";
import { gitMetadata, undoCreated } from "../../workspace/git-surfaces/git-metadata.js";
import { GitWatch, type Stay } from "../../workspace/git-surfaces/git-watch.js";
import { cachesRoot, toolchainCaches } from "../toolchains/caches.js";
import type { TaskRequest, WorkerEvent } from "../worker-runtime.js";
import { type Command, confine, findBwrap, findSocat, NO_SANDBOX, secretPaths } from "./confine.js";
import { type GateWatch, NetworkGate } from "./network-gate.js";
import { PrivateRefs } from "./private-refs.js";

/** A command to spawn, the variables to set on top of its environment, and what to release when it has ended. */
export interface Launch extends Command {
	readonly env: Readonly<Record<string, string>>;
	/** The toolchain caches of crew's a confined launch was given (see `toolchainCaches`). */
	readonly caches?: CachesRecord;
	/**
	 * Releases what the launch holds once its processes have ended, and undoes what they left that
	 * git would run or follow later, outside the sandbox (see `Closed`).
	 */
	close(): Promise<Closed>;
}

/** What an attempt's processes left that crew undid when they ended. */
export interface Closed {
	/**
	 * Git metadata not its own that it changed, which crew undid: what would make git run a
	 * program or read another repository later, and other tasks' branches.
	 */
	readonly planted: readonly string[];
	/** The git folders it (or an attempt beside it in a shared workspace) left in the workspace, moved out. */
	readonly setAside: readonly SetAside[];
	/** The submodules a confined attempt (or one beside it) added or changed, refused. */
	readonly submodules: readonly string[];
	/** Whether other attempts worked in the same workspace meanwhile, so that what was left may be theirs. */
	readonly shared: boolean;
}

/** What an attempt that left nothing is closed with. */
export const NOTHING_LEFT: Closed = { planted: [], setAside: [], submodules: [], shared: false };

/** The failure of an attempt whose processes left what `Launch.close` refuses: not worth a retry. */
export function leftFailure(closed: Closed): { readonly message: string; readonly retryable: false } | undefined {
	const reasons: string[] = [];
	if (closed.planted.length > 0)
		reasons.push(
			`changed git metadata that is not its own (what would run a program or read another repository outside the sandbox, or another task's branch), which crew undid: ${closed.planted.join(", ")}`,
		);
	if (closed.submodules.length > 0)
		reasons.push(
			`added or changed submodules, which a confined task may not (a submodule names a repository that your next \`git submodule update\` or recursive clone fetches and checks out): ${closed.submodules.join(", ")}; give the step \`sandbox: off\` to let it`,
		);
	return reasons.length > 0 ? { message: reasons.join("; and "), retryable: false } : undefined;
}

/** Tells of the git folders `closed` names as set aside, as the attempt's event. */
export function tellSetAside(closed: Closed, onEvent: (event: WorkerEvent) => void): void {
	if (closed.setAside.length > 0) onEvent({ type: "git-set-aside", folders: closed.setAside, shared: closed.shared });
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
	readonly #watch = new GitWatch();
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
		const confined = asked !== undefined && isConfined(asked);
		// A read-only workspace is left as it was; an unconfined attempt's submodules are its user's choice.
		const stay =
			confined && asked.readOnly
				? undefined
				: await timed("sandbox: list the workspace's git folders", () => this.#watch.enter(request.cwd, confined));
		const aside = join(request.artifactDir, `attempt-${request.attempt}.git-set-aside`);
		const leave = async () =>
			stay ? timed("sandbox: look for the git folders left", () => stay.leave(aside)) : NOTHING_LEFT;
		if (!confined) {
			const close = async (): Promise<Closed> => ({ ...(await leave()), submodules: [], planted: [] });
			return { ...command, env: {}, close };
		}
		try {
			return await this.#confine(request, asked, command, needs, stay, leave);
		} catch (error) {
			// The stay ends with the attempt that never started, so the workspace is looked after again.
			await leave();
			throw error;
		}
	}

	async #confine(
		request: TaskRequest,
		asked: AttemptSandbox,
		command: Command,
		needs: Needs,
		stay: Stay | undefined,
		leave: () => Promise<Omit<Closed, "planted">>,
	): Promise<Launch> {
		const { bwrap, socat } = this.#found();
		const home = needs.env.HOME || this.#env.HOME || homedir();
		const git = timed("sandbox: read the git metadata", () =>
			gitMetadata(request.cwd, !asked.readOnly, stay?.before ?? []),
		);
		const refs = git?.refFolders.length ? PrivateRefs.make(git.refFolders) : undefined;
		const undo = async (): Promise<Closed> => {
			const planted = [...(git ? undoCreated(git, request.cwd) : []), ...(refs?.settle() ?? [])];
			return { ...(await leave()), planted };
		};
		const repository = asked.resources === undefined ? undefined : dirname(asked.resources);
		const { env: cacheEnv, ...caches } = toolchainCaches(
			repository,
			join(request.artifactDir, `attempt-${request.attempt}.caches`),
			needs.env,
		);
		const spec = {
			workspace: request.cwd,
			readOnlyWorkspace: asked.readOnly,
			writable: [...(needs.writable ?? []), ...(git?.writable ?? []), caches.folder],
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
				// Other repositories' caches: what one's attempts leave there is not another's to use.
				cachesRoot(needs.env),
				...asked.hide,
			],
		};
		// The host's TMPDIR may be a folder the process cannot write; its own /tmp it can. Its
		// toolchains write their caches to crew's, never the user's.
		const tmp = { TMPDIR: "/tmp", ...cacheEnv };
		const { network } = needs;
		let gate: NetworkGate | undefined;
		try {
			if (typeof network === "string") {
				return { ...confine(bwrap, { ...spec, network }, command), env: tmp, caches, close: undo };
			}
			if (socat === null)
				throw new CrewError(ErrorCode.InvalidInput, `this task asks for a sandbox, and ${NO_SANDBOX}`);
			const opened = await timed("sandbox: open the network gate", () => NetworkGate.open(network.allow, network));
			gate = opened;
			const confined = confine(bwrap, { ...spec, network: { gate: opened.folder } }, opened.wrap(socat, command));
			const close = async () => {
				await opened.close();
				return undo();
			};
			return { ...confined, env: { ...tmp, ...opened.env() }, caches, close };
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
