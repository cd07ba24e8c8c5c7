import { homedir } from "node:os";
import { dirname } from "node:path";
import { crewPackageDir } from "../../config/crew-package.js";
import { userConfigDir } from "../../config/resource-layers.js";
import { isConfined } from "../../core/sandbox.js";
import type { TaskRequest } from "../worker-runtime.js";
import { type Command, confine, findBwrap, secretFolders } from "./confine.js";

/** A command to spawn, and the variables to set on top of its environment. */
export interface Launch extends Command {
	readonly env: Readonly<Record<string, string>>;
}

/** What a confined process needs beyond its workspace, as its runtime knows it. */
export interface Needs {
	/** Folders and files it writes: an agent CLI's own state. */
	readonly writable?: readonly string[];
	/** Folders it reads that may be out of sight: the one its program is in, when that is under /tmp. */
	readonly readable?: readonly string[];
	/** `host`: the network as it is; `none`: a loopback of its own. */
	readonly network: "host" | "none";
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
	#bwrap: { readonly file: string | null } | undefined;

	constructor(env: NodeJS.ProcessEnv = process.env) {
		this.#env = env;
	}

	/** Whether this machine can confine a process: a working bubblewrap is on PATH. */
	available(): boolean {
		return this.#found() !== null;
	}

	/**
	 * `command` as it is started for `request`: unchanged when its sandbox is off, else under
	 * bubblewrap with its workspace (read-only for a read-only agent), what `needs` names, the
	 * attempt's own files and crew's own package (its bundled pi) in sight, secrets and crew's own folders hidden, and a /tmp of its own.
	 * Throws when the request asks for a sandbox this machine cannot give.
	 */
	wrap(request: TaskRequest, command: Command, needs: Needs): Launch {
		const asked = request.sandbox;
		if (!asked || !isConfined(asked)) return { ...command, env: {} };
		const home = needs.env.HOME || this.#env.HOME || homedir();
		const confined = confine(
			this.#found(),
			{
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
				network: needs.network,
			},
			command,
		);
		// The host's TMPDIR may be a folder the process cannot write; its own /tmp it can.
		return { ...confined, env: { TMPDIR: "/tmp" } };
	}

	#found(): string | null {
		this.#bwrap ??= { file: findBwrap(this.#env.PATH) };
		return this.#bwrap.file;
	}
}
