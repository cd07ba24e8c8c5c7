import { type ChildProcess, spawn } from "node:child_process";
import { createServer, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** A real redis-server on a free loopback port, keeping nothing on disk, for one test file. */
export class RedisServer {
	readonly url: string;
	readonly #process: ChildProcess;
	readonly #port: number;

	private constructor(port: number, child: ChildProcess) {
		this.#port = port;
		this.#process = child;
		this.url = `redis://127.0.0.1:${port}`;
	}

	static async start(): Promise<RedisServer> {
		const port = await freePort();
		const child = spawn(
			"redis-server",
			["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
			{ stdio: "ignore" },
		);
		const server = new RedisServer(port, child);
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
			socket.connect(this.#port, "127.0.0.1", () => socket.write("PING\r\n"));
			socket.once("data", (data) => {
				socket.destroy();
				resolve(data.toString().startsWith("+PONG"));
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
