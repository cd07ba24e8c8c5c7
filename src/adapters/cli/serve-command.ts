import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { findProject } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { createApp } from "../http/app.js";
import { print } from "./print.js";

export interface ServeOptions {
	readonly port: number;
	readonly host: string;
}

const LOOPBACK = ["127.0.0.1", "localhost", "::1", "[::1]"];

/**
 * Serves the API, the live event streams, the dashboard and `/metrics` until Ctrl-C. Mutating
 * requests need the token printed at start; on loopback, only loopback host names are answered.
 */
export async function serveCommand(options: ServeOptions): Promise<number> {
	const project = findProject(process.cwd());
	const token = randomBytes(18).toString("base64url");
	const loopback = LOOPBACK.includes(options.host);
	const { app, close } = createApp({ project, token, ...(loopback ? { allowedHosts: LOOPBACK } : {}) });
	const server = serve({ fetch: app.fetch, port: options.port, hostname: options.host });
	try {
		const address = await new Promise<AddressInfo>((resolve, reject) => {
			server.once("listening", () => resolve(server.address() as AddressInfo));
			server.once("error", (error) =>
				reject(
					new CrewError(ErrorCode.InvalidInput, `cannot listen on ${options.host}:${options.port}: ${error.message}`),
				),
			);
		});
		const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
		const url = `http://${shown}:${address.port}`;
		print(`crew serve: ${project.root}\n`);
		print(`  dashboard  ${url}/?token=${token}\n`);
		print(`  API        ${url}/api/runs   metrics ${url}/metrics\n`);
		print(`  token      ${token}   (cancel, resume, approve and reject need it)\n`);
		if (!loopback) print(`  note: listening beyond loopback; anyone who reaches ${url} can read runs\n`);
		await new Promise<void>((resolve) => {
			for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
		});
		return 0;
	} finally {
		server.close();
		close();
	}
}
