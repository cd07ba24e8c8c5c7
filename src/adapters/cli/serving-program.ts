// The CLI commands that serve crew to others: `serve`, `worker` and `mcp`.

import type { Command } from "commander";
import { count, port } from "./option-values.js";
import { version } from "./version.js";
import type { WorkerOptions } from "./worker-command.js";

/** The commands that serve crew to others: the HTTP API and dashboard, a queue's worker, the MCP server. */
export function servingCommands(cli: Command, exit: (code: Promise<number>) => Promise<void>): void {
	cli
		.command("serve")
		.description("the HTTP API, live event streams, web dashboard and /metrics of this repository's runs")
		.option("--port <n>", "port to listen on (0: any free port)", port, 7420)
		.option("--host <address>", "address to listen on (every request needs the token)", "127.0.0.1")
		.option("--metrics-open", "serve /metrics without the token, for a scraper that cannot send one")
		.option("--no-scheduler", "do not start this repository's scheduled runs while serving")
		.action(async (options: { port: number; host: string; metricsOpen?: boolean; scheduler?: boolean }) =>
			exit((await import("./serve-command.js")).serveCommand(options)),
		);

	cli
		.command("worker")
		.description("run attempts of runs started with --queue: this machine's agents, in folders of its own")
		.option("--queue <url>", "the runs' Redis: redis://host:port (default: queue.url of your user config)")
		.option("--concurrency <n>", "attempts at once (default 1)", count("concurrency", 1), 1)
		.option(
			"--workdir <dir>",
			"where attempts get their folders and repositories are copied, kept between runs (default: a new folder in the system's temp dir)",
		)
		.option("--name <name>", "this worker's name in logs and in its agents' CREW_WORKER (default host:pid)")
		.option(
			"--lock-duration <ms>",
			"how long a job's lock lasts unrenewed; a worker silent that long loses its attempts to others (default 10000)",
			count("lock duration", 500),
			10_000,
		)
		.option("--sandbox <level>", "the loosest sandbox of its attempts, whatever a job asks (default: as crew run)")
		.option(
			"--trust <repository>",
			"run the commands of this repository's jobs (its git URL or path, as runs give it with --repository); repeatable. Local paths you `crew trust` here count too",
			(value: string, previous: string[]) => [...previous, value],
			[] as string[],
		)
		.option("--trust-all", "run the commands of every job of the queue, whatever repository it comes from")
		.action(async (options: WorkerOptions) => exit((await import("./worker-command.js")).workerCommand(options)));

	cli
		.command("mcp")
		.description("serve crew's tools over MCP on stdin/stdout for this repository (for Claude Code, Codex, …)")
		.action(async () => exit((await import("../mcp/mcp-command.js")).mcpCommand(version())));
}
