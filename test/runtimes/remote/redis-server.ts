import { type ChildProcess, spawn } from "node:child_process";
import { createServer, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * A real redis-server on a free loopback port, keeping nothing on disk, for one test file; with
 * `password`, one that refuses every command until a client gives it (`requirepass`).
 */
export class RedisServer {
	/** The URL clients use, with the password when there is one. */
	readonly url: string;
	readonly #process: ChildProcess;
	readonly #port: number;
	readonly #password: string | undefined;

	private constructor(port: number, child: ChildProcess, password: string | undefined) {
		this.#port = port;
		this.#process = child;
		this.#password = password;
		this.url = password === undefined ? `redis://127.0.0.1:${port}` : `redis://:${password}@127.0.0.1:${port}`;
	}

	static async start(options: { readonly password?: string } = {}): Promise<RedisServer> {
		// Another test file may take the free port before this server binds it: the server then
		// exits, and the next port is tried. A server answering on the port is this one only when it
		// reports this child's pid.
		for (let tries = 1; ; tries++) {
			const port = await freePort();
			const auth = options.password === undefined ? [] : ["--requirepass", options.password];
			const child = spawn(
				"redis-server",
				["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...auth],
				{ stdio: "ignore" },
			);
			const server = new RedisServer(port, child, options.password);
			const until = Date.now() + 10_000;
			while (child.exitCode === null && !(await server.#answers())) {
				if (Date.now() > until) throw new Error(`redis-server did not start on port ${port}`);
				await sleep(50);
			}
			if (child.exitCode === null) return server;
			if (tries === 5) throw new Error(`redis-server exited ${child.exitCode} on port ${port}, five times`);
		}
	}

	async stop(): Promise<void> {
		this.#process.kill("SIGKILL");
		await new Promise((resolve) =>
			this.#process.exitCode !== null ? resolve(null) : this.#process.once("exit", resolve),
		);
	}

	/** Whether the server on the port is this one: it gives INFO, with this child's pid. */
	#answers(): Promise<boolean> {
		return new Promise((resolve) => {
			const socket = new Socket();
			socket.once("error", () => resolve(false));
			socket.once("close", () => resolve(false));
			const auth = this.#password === undefined ? "" : `AUTH ${this.#password}\r\n`;
			socket.connect(this.#port, "127.0.0.1", () => socket.write(`${auth}INFO server\r\n`));
			let said = "";
			socket.on("data", (data) => {
				said += data.toString();
				const pid = /process_id:(\d+)\r\n/.exec(said);
				if (!pid && !/(^|\r\n)-[A-Z]/.test(said)) return;
				socket.destroy();
				resolve(pid?.[1] === String(this.#process.pid));
			});
		});
	}
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
		});
	});
}
