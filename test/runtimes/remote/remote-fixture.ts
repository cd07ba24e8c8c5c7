import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { cancelLiveRuns, crewProcess, exitOf, type TestRepo, waitFor } from "../../helpers.js";
import { RedisServer } from "./redis-server.js";

export interface RemoteFixture {
	/** The queue's Redis URL; there once the file's tests run. */
	readonly url: string;
	/** A repository whose live runs are cancelled after the test. */
	keep<T extends TestRepo>(repo: T): T;
	/**
	 * A `crew worker` on the queue, standing in for a machine of its own: its own name and work
	 * folder (`<dir>/work-<name>`), two attempts at a time, and a short lock so a dead one is
	 * noticed within seconds. Stopped after the test; resolves once it takes attempts. `env` is
	 * its environment (default: this process's); `trust` its trust flags (default: every job's
	 * commands run, as the tests' jobs without a repository are command agents).
	 */
	worker(name: string, dir: string, env?: NodeJS.ProcessEnv, trust?: readonly string[]): Promise<ChildProcess>;
}

/**
 * A test file of remote runs: a real redis-server for all its tests, and after each test its
 * repositories' runs cancelled and its workers stopped; with `password`, a Redis that needs it.
 * Call it at the top of the file.
 */
export function remoteFixture(options: { readonly password?: string } = {}): RemoteFixture {
	let redis: RedisServer | undefined;
	const workers: ChildProcess[] = [];
	const repos: TestRepo[] = [];
	beforeAll(async () => {
		redis = await RedisServer.start(options);
	});
	afterEach(async () => {
		for (const repo of repos.splice(0)) await cancelLiveRuns(repo.dir);
		for (const worker of workers.splice(0)) {
			worker.kill("SIGTERM");
			await exitOf(worker);
		}
	});
	afterAll(async () => {
		await redis?.stop();
	});
	const url = () => {
		if (!redis) throw new Error("the queue's Redis starts before the file's tests");
		return redis.url;
	};
	return {
		get url() {
			return url();
		},
		keep(repo) {
			repos.push(repo);
			return repo;
		},
		async worker(name, dir, env, trust = ["--trust-all"]) {
			const worker = crewProcess(
				dir,
				[
					"worker",
					"--queue",
					url(),
					"--concurrency",
					"2",
					"--name",
					name,
					"--workdir",
					join(dir, `work-${name}`),
					"--lock-duration",
					"1500",
					// Its operator lets jobs run unconfined: the tests' command agents log beside their repository.
					"--sandbox",
					"off",
					...trust,
				],
				env,
			);
			workers.push(worker);
			let out = "";
			worker.stdout?.on("data", (chunk: Buffer) => {
				out += chunk.toString();
			});
			await waitFor(`worker ${name} ready`, () => out.includes("taking attempts"));
			return worker;
		},
	};
}
