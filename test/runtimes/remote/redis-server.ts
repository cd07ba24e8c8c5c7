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
		const port = await freePort();
		const auth = options.password === undefined ? [] : ["--requirepass", options.password];
		const child = spawn(
			"redis-server",
			["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...auth],
			{ stdio: "ignore" },
		);
		const server = new RedisServer(port, child, options.password);
		const until = Date.now() + 10_000;
		while (!(await server.#answers())) {
			if (Date.now() > until) throw new Error(`redis-server did not start on port ${port}`);
			await sleep(50);
		}
		return server;
	}

	async stop(): Promise<void> {
		this.#process.kill("SIGKILL");
		await new Promise((resolve) =>
			this.#process.exitCode !== null ? resolve(null) : this.#process.once("exit", resolve),
		);
	}

	#answers(): Promise<boolean> {
		return new Promise((resolve) => {
			const socket = new Socket();
			socket.once("error", () => resolve(false));
			const auth = this.#password === undefined ? "" : `AUTH ${this.#password}\r\n`;
			socket.connect(this.#port, "127.0.0.1", () => socket.write(`${auth}PING\r\n`));
			let said = "";
			socket.on("data", (data) => {
				said += data.toString();
				if (!said.includes("\r\n", auth === "" ? 0 : said.indexOf("\r\n") + 2)) return;
				socket.destroy();
				resolve(said.includes("+PONG"));
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
