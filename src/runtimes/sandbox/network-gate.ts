// A confined agent's network gate: a proxy and loopback forwards that let through only the allowed hosts.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostPort } from "../../core/sandbox-level.js";

/** What a gate tells of: a host it refused, and an allowed one it could not connect to, with why (`ECONNREFUSED`). */
export interface GateWatch {
	denied(host: HostPort): void;
	unreachable(host: HostPort, why: string): void;
}

/** Where the gate's sockets appear inside the sandbox: under its own /tmp, where bwrap can make the mount point. */
export const GATE_MOUNT = "/tmp/.crew-net";
/** The port the proxy listens on inside the sandbox's own loopback. */
const PROXY_PORT = 3128;

/**
 * The way out of a confined agent's empty network, one per attempt: on the host, an HTTP proxy
 * (absolute-form requests and CONNECT) that lets through only the allowed hosts and tells of each
 * other one, and a plain forward for each allowed port of this machine's loopback (a local model
 * server, reached as it is, with no proxy support needed). Both listen on unix sockets in a folder
 * the sandbox shows at `GATE_MOUNT`; inside, socat bridges the loopback ports to them.
 */
export class NetworkGate {
	readonly folder: string;
	readonly #allow: readonly HostPort[];
	readonly #loopback: readonly number[];
	readonly #servers: (Server | NetServer)[] = [];
	readonly #sockets = new Set<Socket>();
	readonly #watch: GateWatch;

	private constructor(allow: readonly HostPort[], watch: GateWatch) {
		this.folder = mkdtempSync(join(tmpdir(), "crew-net-"));
		this.#allow = allow;
		this.#loopback = [...new Set(allow.filter((a) => isLoopback(a.host)).map((a) => a.port))];
		this.#watch = watch;
	}

	static async open(allow: readonly HostPort[], watch: GateWatch): Promise<NetworkGate> {
		const gate = new NetworkGate(allow, watch);
		await gate.#listen();
		return gate;
	}

	/** The variables that send a confined process's HTTP clients through the proxy. */
	env(): Record<string, string> {
		const proxy = `http://127.0.0.1:${PROXY_PORT}`;
		const direct = "127.0.0.1,localhost";
		return {
			HTTP_PROXY: proxy,
			HTTPS_PROXY: proxy,
			http_proxy: proxy,
			https_proxy: proxy,
			NO_PROXY: direct,
			no_proxy: direct,
		};
	}

	/**
	 * `command` run inside the sandbox behind the gate: the bridges started, waited for until they
	 * listen, the command run (not exec'd, so the bridges end with it), its exit status passed on.
	 */
	wrap(
		socat: string,
		command: { readonly file: string; readonly args: readonly string[] },
	): { file: string; args: string[] } {
		// Each bridge's pid kept: a shell without job control lists no jobs to end.
		const bridge = (port: number, socket: string) =>
			`${socat} TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${GATE_MOUNT}/${socket} </dev/null >/dev/null 2>&1 & bridges="$bridges $!";`;
		const bridges = [bridge(PROXY_PORT, "proxy.sock"), ...this.#loopback.map((p) => bridge(p, `fwd-${p}.sock`))];
		// A listening socket is a line of /proc/net/tcp with its port in hex and state 0A.
		const waits = [PROXY_PORT, ...this.#loopback].map(
			(p) =>
				`i=0; until grep -q ":${p.toString(16).toUpperCase().padStart(4, "0")} 00000000:0000 0A" /proc/net/tcp; do i=$((i+1)); [ $i -gt 400 ] && break; sleep 0.005; done`,
		);
		const script = `bridges=; ${bridges.join(" ")} ${waits.join("; ")}; "$@"; rc=$?; kill $bridges 2>/dev/null; exit $rc`;
		return { file: "/bin/sh", args: ["-c", script, "crew-gate", command.file, ...command.args] };
	}

	/** Ends every connection still open (a tunnel whose far end lingers) and the listeners. */
	async close(): Promise<void> {
		for (const socket of this.#sockets) socket.destroy();
		await Promise.all(this.#servers.map((server) => new Promise((done) => server.close(done))));
		rmSync(this.folder, { recursive: true, force: true });
	}

	#allowed(host: string, port: number): boolean {
		return this.#allow.some((a) => a.host === host && a.port === port);
	}

	#deny(host: string, port: number): void {
		this.#watch.denied({ host, port });
	}

	/** An upstream connection that failed: told of, and its client's ended. */
	#lost(host: string, port: number, client: { destroy(): void }): (error: NodeJS.ErrnoException) => void {
		return (error) => {
			this.#watch.unreachable({ host, port }, error.code ?? error.message);
			client.destroy();
		};
	}

	#track(server: Server | NetServer): void {
		server.on("connection", (socket: Socket) => {
			this.#sockets.add(socket);
			socket.on("close", () => this.#sockets.delete(socket));
		});
		this.#servers.push(server);
	}

	async #listen(): Promise<void> {
		const proxy = createHttpServer((request, response) => {
			let url: URL;
			try {
				url = new URL(request.url ?? "");
			} catch {
				response.writeHead(400).end();
				return;
			}
			const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
			const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
			if (!this.#allowed(host, port)) {
				this.#deny(host, port);
				response.writeHead(403).end(`crew sandbox: ${host}:${port} is not allowed\n`);
				return;
			}
			const upstream = httpRequest(
				{ host, port, method: request.method, path: `${url.pathname}${url.search}`, headers: request.headers },
				(answer) => {
					response.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(response);
				},
			);
			upstream.on("error", this.#lost(host, port, response));
			request.pipe(upstream);
		});
		proxy.on("connect", (request, client: Socket, head: Buffer) => {
			const target = request.url ?? "";
			const colon = target.lastIndexOf(":");
			const host = target
				.slice(0, colon)
				.replace(/^\[|\]$/g, "")
				.toLowerCase();
			const port = Number(target.slice(colon + 1));
			if (!this.#allowed(host, port)) {
				this.#deny(host, port);
				client.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
				return;
			}
			const upstream = connect(port, host, () => {
				client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
				upstream.write(head);
				client.pipe(upstream).pipe(client);
			});
			upstream.on("error", this.#lost(host, port, client));
			client.on("error", () => upstream.destroy());
		});
		this.#track(proxy);
		const listening = [listen(proxy, join(this.folder, "proxy.sock"))];
		for (const port of this.#loopback) {
			const forward = createNetServer((client) => {
				const upstream = connect(port, "127.0.0.1");
				client.pipe(upstream).pipe(client);
				upstream.on("error", this.#lost("127.0.0.1", port, client));
				client.on("error", () => upstream.destroy());
			});
			this.#track(forward);
			listening.push(listen(forward, join(this.folder, `fwd-${port}.sock`)));
		}
		await Promise.all(listening);
	}
}

function listen(server: Server | NetServer, path: string): Promise<void> {
	return new Promise((done, fail) => {
		server.once("error", fail);
		server.listen(path, () => done());
	});
}

function isLoopback(host: string): boolean {
	return host === "127.0.0.1" || host === "localhost" || host === "::1";
}
