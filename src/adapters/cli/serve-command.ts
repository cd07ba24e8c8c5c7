// `crew serve`: the HTTP API, live event streams, dashboard and metrics, behind a token printed at start.

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { hostname, networkInterfaces } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { serve } from "@hono/node-server";
import { findProject, type Project } from "../../config/project.js";
import { loadSettings } from "../../config/settings.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { createApp } from "../http/app.js";
import { configuredRuntimes } from "../shared/configured-runtimes.js";
import { Scheduler } from "../shared/scheduler.js";
import { openCrew } from "./open-crew.js";
import { print } from "./print.js";

export interface ServeOptions {
	readonly port: number;
	readonly host: string;
	/** `/metrics` without the token, for a scraper that cannot send one. */
	readonly metricsOpen?: boolean;
	/** `false`: no scheduler starts the repository's scheduled runs while it serves. */
	readonly scheduler?: boolean;
}

const LOOPBACK = ["127.0.0.1", "localhost", "::1", "[::1]"];

/**
 * The names a request may give as its Host: the loopback ones, and beyond loopback the address
 * listened on (each of the machine's, for all of them) and the machine's name. Any other is a
 * name that a web page made lead here (DNS rebinding).
 */
function servedHosts(host: string): string[] {
	if (LOOPBACK.includes(host)) return LOOPBACK;
	const all = host === "0.0.0.0" || host === "::";
	const addresses = all
		? Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address))
		: [host];
	return [...LOOPBACK, hostname(), ...addresses.flatMap((a) => (a.includes(":") ? [a, `[${a}]`] : [a]))];
}

/**
 * Serves the API, the live event streams, the dashboard and `/metrics` until Ctrl-C. Every API
 * request (and `/metrics`, unless `metricsOpen`) needs the token printed at start, and only the
 * host names of `servedHosts` are answered.
 */
export async function serveCommand(options: ServeOptions): Promise<number> {
	const project = findProject(process.cwd());
	const token = randomBytes(18).toString("base64url");
	const loopback = LOOPBACK.includes(options.host);
	const { app, close } = createApp({
		project,
		token,
		allowedHosts: servedHosts(options.host),
		...(options.metricsOpen ? { metricsOpen: true } : {}),
	});
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
		print(`  token      ${token}   (every API request needs it, as 'Authorization: Bearer <token>')\n`);
		if (!loopback) print(`  note: listening beyond loopback; plain HTTP, so the token crosses the network as it is\n`);
		const stop = new AbortController();
		const scheduling = options.scheduler === false ? undefined : scheduleWhileServing(project, stop.signal);
		print(`  scheduler  ${scheduling ? "starts the scheduled runs (--no-scheduler: off)" : "off"}\n`);
		await new Promise<void>((resolve) => {
			for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
		});
		stop.abort();
		await scheduling;
		return 0;
	} finally {
		server.close();
		close();
	}
}

/**
 * The scheduler of `crew serve`, on a store of its own connection: it waits for the store to
 * exist (serving alone makes none), then starts the scheduled runs until `signal` aborts.
 */
async function scheduleWhileServing(project: Project, signal: AbortSignal): Promise<void> {
	while (!signal.aborted && !existsSync(project.dbFile))
		await sleep(1_000, undefined, { signal }).catch(() => undefined);
	if (signal.aborted) return;
	const settings = loadSettings(project);
	const crew = openCrew(project, { runtimes: configuredRuntimes(settings) });
	try {
		const say = (line: string) => print(`${new Date().toISOString()}  ${line}\n`);
		await new Scheduler(crew, settings, say).run(signal);
	} finally {
		crew.close();
	}
}
