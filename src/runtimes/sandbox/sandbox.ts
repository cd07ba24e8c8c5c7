import { homedir } from "node:os";
import { dirname } from "node:path";
import { crewPackageDir } from "../../config/crew-package.js";
import { userConfigDir } from "../../config/resource-layers.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { type HostPort, isConfined } from "../../core/sandbox.js";
import type { TaskRequest } from "../worker-runtime.js";
import { type Command, confine, findBwrap, findSocat, NO_SANDBOX, secretFolders } from "./confine.js";
import { type GateWatch, NetworkGate } from "./network-gate.js";

/** A command to spawn, the variables to set on top of its environment, and what to release when it has ended. */
export interface Launch extends Command {
	readonly env: Readonly<Record<string, string>>;
	close(): Promise<void>;
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
		if (!asked || !isConfined(asked)) return { ...command, env: {}, close: async () => {} };
		const { bwrap, socat } = this.#found();
		const home = needs.env.HOME || this.#env.HOME || homedir();
		const spec = {
			workspace: request.cwd,
			readOnlyWorkspace: asked.readOnly,
			writable: needs.writable ?? [],
			readable: [
				crewPackageDir(),
				...asked.show,
				...(needs.readable ?? []),
				dirname(request.promptFile),
				request.artifactDir,
			],
			hidden: [...secretFolders(home), userConfigDir(this.#env), userConfigDir(needs.env), ...asked.hide],
		};
		// The host's TMPDIR may be a folder the process cannot write; its own /tmp it can.
		const tmp = { TMPDIR: "/tmp" };
		const { network } = needs;
		if (typeof network === "string") {
			return { ...confine(bwrap, { ...spec, network }, command), env: tmp, close: async () => {} };
		}
		if (socat === null) throw new CrewError(ErrorCode.InvalidInput, `this task asks for a sandbox, and ${NO_SANDBOX}`);
		const gate = await NetworkGate.open(network.allow, network);
		try {
			const confined = confine(bwrap, { ...spec, network: { gate: gate.folder } }, gate.wrap(socat, command));
			return { ...confined, env: { ...tmp, ...gate.env() }, close: () => gate.close() };
		} catch (error) {
			await gate.close();
			throw error;
		}
	}

	#found(): { readonly bwrap: string | null; readonly socat: string | null } {
		this.#tools ??= { bwrap: findBwrap(this.#env.PATH), socat: findSocat(this.#env.PATH) };
		return this.#tools;
	}
}
