// `crew worker`: runs attempts from a remote queue with this machine's agent CLIs, for trusted repositories.

import { existsSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { findProject } from "../../config/project.js";
import { loadSettings } from "../../config/settings.js";
import { TrustStore } from "../../config/trust.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { isSandboxLevel, SANDBOX_LEVELS } from "../../core/sandbox-level.js";
import { withoutCredentials } from "../../core/url-credentials.js";
import { queueKey } from "../../runtimes/remote/job-seal.js";
import { RemoteWorker } from "../../runtimes/remote/remote-worker.js";
import { configuredRuntimes } from "../shared/configured-runtimes.js";
import { print } from "./print.js";

export interface WorkerOptions {
	readonly queue?: string;
	readonly concurrency: number;
	readonly workdir?: string;
	readonly name?: string;
	readonly lockDuration: number;
	readonly trust: readonly string[];
	readonly trustAll?: boolean;
	readonly sandbox?: string;
}

/**
 * The repositories whose jobs this worker runs commands for: every one with `--trust-all`, else
 * those named with `--trust`, and local paths in this host's trust records.
 */
function workerTrust(options: WorkerOptions): (repository: string | undefined) => boolean {
	if (options.trustAll) return () => true;
	const named = new Set(options.trust.map((repository) => withoutCredentials(repository)));
	const records = new TrustStore();
	return (repository) => {
		if (repository === undefined) return false;
		if (named.has(withoutCredentials(repository))) return true;
		return isAbsolute(repository) && existsSync(repository) && records.isTrusted(repository);
	};
}

/**
 * Runs attempts from the queue until SIGINT or SIGTERM, with this machine's agent CLIs as the
 * user's config sets them. Agents see `CREW_WORKER` (this worker's name).
 */
export async function workerCommand(options: WorkerOptions): Promise<number> {
	const name = options.name ?? `${hostname()}:${process.pid}`;
	process.env.CREW_WORKER = name;
	const workdir = resolve(options.workdir ?? join(tmpdir(), `crew-worker-${process.pid}`));
	const settings = loadSettings(findProject(process.cwd()));
	const url = options.queue ?? settings.queue;
	if (url === undefined) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			'crew worker needs --queue redis://host:port, or "queue": {"url": …} in your user config',
		);
	}
	const key = queueKey(process.env, "crew worker");
	const asked = options.sandbox ?? settings.sandbox;
	if (asked !== undefined && !isSandboxLevel(asked)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid sandbox ${JSON.stringify(asked)}: expected one of ${SANDBOX_LEVELS.join(", ")}`,
		);
	}
	const runtimes = configuredRuntimes(settings);
	const worker = new RemoteWorker({
		url,
		key,
		sandbox: asked ?? (runtimes.sandbox.available() ? "workspace" : "off"),
		runtimes,
		workdir,
		concurrency: options.concurrency,
		lockMs: options.lockDuration,
		trusts: workerTrust(options),
		log: (line) => print(`${new Date().toISOString()} ${line}\n`),
	});
	await worker.start();
	print(
		`crew worker ${name}: taking attempts from ${withoutCredentials(url)}, ${options.concurrency} at a time, in ${workdir}\n`,
	);
	await new Promise<void>((done) => {
		for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => done());
	});
	await worker.close();
	return 0;
}
