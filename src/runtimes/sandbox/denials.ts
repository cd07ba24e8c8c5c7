// What a confined attempt's processes were refused, read from their output as `sandbox-denied` events.

import { resolve } from "node:path";
import { allowHint } from "../../core/registries.js";
import { type HostPort, hostPortText } from "../../core/sandbox-level.js";
import { CUT } from "../agent/tool-output.js";
import type { WorkerEvent } from "../worker-runtime.js";
import type { GateWatch } from "./network-gate.js";

/** How a refused write reads in a tool's output: a shell's, Node's, Python's, git's. */
const WRITE_REFUSED: readonly RegExp[] = [
	/([^\s:'"`]+): Read-only file system/g,
	/EROFS: read-only file system, \w+ '([^']+)'/g,
	/\[Errno 30\] Read-only file system: '([^']+)'/g,
	/Unable to create '([^']+)': Read-only file system/g,
];

/** How a connection a process without a network (or a gated one) tried reads: Node's, curl's, a resolver's. */
const CONNECT_REFUSED: readonly { readonly pattern: RegExp; readonly port: boolean }[] = [
	{ pattern: /ECONNREFUSED (\[?[\w.:-]+?\]?):(\d+)/g, port: true },
	{ pattern: /Failed to connect to (\S+) port (\d+)/g, port: true },
	{ pattern: /Could not resolve host: ([\w.-]+)/g, port: false },
	{ pattern: /getaddrinfo (?:EAI_AGAIN|ENOTFOUND) ([\w.-]+)/g, port: false },
];

/**
 * What a confined attempt's processes were refused, read from what they said (their tools'
 * output, their own output and errors): each path or host once per attempt, as a
 * `sandbox-denied` event. The kernel tells a process, not crew, so this is what crew can know:
 * a refusal nothing printed goes unseen. Connections count only for a process whose network is
 * cut to a list of hosts (none, or its gate's), and then only to hosts not on it; a gate tells of
 * what it refused through `deny`.
 */
export class DenialWatch {
	readonly #seen = new Set<string>();
	readonly #hosts: { readonly host: string; readonly port?: number }[] = [];
	readonly #unreachable = new Set<string>();
	readonly #onEvent: (event: WorkerEvent) => void;
	readonly #reach: "all" | readonly HostPort[];
	readonly #cwd: string;

	/**
	 * `reach`: what the processes may connect to: `all` (the network as it is), or only these hosts;
	 * `cwd`: where they started, which a relative path is read from.
	 */
	constructor(
		onEvent: (event: WorkerEvent) => void,
		options: { readonly reach: "all" | readonly HostPort[]; readonly cwd: string },
	) {
		this.#onEvent = onEvent;
		this.#reach = options.reach;
		this.#cwd = options.cwd;
	}

	/** The events of a worker, passed on, with the refusals their text tells of. */
	readonly pass = (event: WorkerEvent): void => {
		this.#onEvent(event);
		if (event.type === "tool-end" && event.output) this.scan(event.output);
		else if (event.type === "output") this.scan(event.text);
	};

	/**
	 * What a process said on stderr, of which crew keeps `head` and `tail`: the same text when it was
	 * short enough for both, else its start and its end, each cut wherever its size fell. A cut line
	 * is left out, so a port or path cut short never reads as another.
	 */
	scanEnds(head: string, tail: string): void {
		if (head === tail) {
			this.scan(head);
			return;
		}
		this.scan(head.slice(0, head.lastIndexOf("\n") + 1));
		this.scan(tail.slice(tail.indexOf("\n") + 1));
	}

	/** Scans `text`; a line crew cut short (ending in CUT) counts up to its last whole word. */
	scan(text: string): void {
		if (text.includes(CUT)) {
			text = text
				.split("\n")
				.map((line) => (line.endsWith(CUT) ? line.slice(0, Math.max(0, line.lastIndexOf(" "))) : line))
				.join("\n");
		}
		const reach = this.#reach;
		if (!text.includes("ead-only") && !text.includes("rrno 30") && reach === "all") return;
		for (const pattern of WRITE_REFUSED) {
			for (const match of text.matchAll(pattern)) this.deny({ path: resolve(this.#cwd, match[1] as string) });
		}
		if (reach === "all") return;
		for (const { pattern, port } of CONNECT_REFUSED) {
			for (const match of text.matchAll(pattern)) {
				const host = (match[1] as string).replace(/^\[|\]$/g, "").toLowerCase();
				const number = port ? Number(match[2]) : undefined;
				// A host it may reach that refused: the host's doing, not the sandbox's.
				if (reach.some((a) => a.host === host && (number === undefined || a.port === number))) continue;
				this.deny(number === undefined ? { host } : { host, port: number });
			}
		}
	}

	/** Tells of a refusal, once per path or host per attempt. */
	deny(what: { readonly path: string } | { readonly host: string; readonly port?: number }): void {
		const key = JSON.stringify(what);
		if (this.#seen.has(key)) return;
		this.#seen.add(key);
		if ("host" in what) this.#hosts.push(what);
		this.#onEvent({ type: "sandbox-denied", ...what });
	}

	/**
	 * What a network gate to `allow` tells this watch: a host it refused, as a denial; an allowed
	 * one it could not connect to, which the process sees only as a dropped connection.
	 */
	gate(allow: readonly HostPort[]): GateWatch & { readonly allow: readonly HostPort[] } {
		return {
			allow,
			denied: (host) => this.deny(host),
			unreachable: (host, why) => this.#unreachable.add(`${hostPortText(host)} (${why})`),
		};
	}

	/**
	 * What a failure's message tells of the network, the likely cause first: each host refused,
	 * with the setting that would allow it, then the allowed hosts the gate could not connect to.
	 */
	networkCauses(): string[] {
		const refused = this.#hosts.map((host) => {
			const named = host.port === undefined ? host.host : hostPortText({ host: host.host, port: host.port });
			return `the sandbox refused a connection to ${named} (${allowHint(host)})`;
		});
		const lost =
			this.#unreachable.size > 0
				? [`crew's network gate could not connect to ${[...this.#unreachable].join(", ")}`]
				: [];
		return [...refused, ...lost];
	}
}
