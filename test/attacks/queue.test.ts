// @module-tag redis
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, expect, test } from "vitest";
import { sealJob } from "../../src/runtimes/remote/job-seal.js";
import { redisAddress } from "../../src/runtimes/remote/redis-url.js";
import { crew, gitRepo, read } from "../helpers.js";
import { remoteFixture } from "../runtimes/remote/remote-fixture.js";

/**
 * Someone who can write to the queue's Redis, but holds no key: they copy a job a worker ran for
 * a repository it trusts, give it a command of their own and no sandbox, and add it again.
 */
const remote = remoteFixture();
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
	for (const close of closing.splice(0)) await close();
});

test("a job forged from a trusted repository's, or signed with another key, runs nothing on a worker", async () => {
	const repo = remote.keep(gitRepo());
	repo.agent("w", "--answer done");
	repo.workflow("one", [{ id: "a", role: "w" }]);
	execFileSync("git", ["add", "-A"], { cwd: repo.dir });
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "crew files"], { cwd: repo.dir });
	await remote.worker("A", repo.dir, process.env, ["--trust", repo.dir]);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "one", "--queue", remote.url, "--json"]);
	expect(run.code, run.stderr).toBe(0);
	const { runId } = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as { runId: string };
	expect(read(repo.dir, (r) => r.status(runId)).tasks[0]?.status).toBe("completed");

	const redis = new Redis(redisAddress(remote.url));
	const queue = new Queue("crew-attempts", { connection: redisAddress(remote.url) });
	closing.push(
		() => redis.quit(),
		() => queue.close(),
	);
	const sent = JSON.parse((await redis.hget(`bull:crew-attempts:${runId}.a.1`, "data")) as string);
	const marker = join(repo.dir, "..", `pwned-queue-${runId}`);
	// biome-ignore lint/suspicious/noExplicitAny: a job's data as Redis holds it, edited as an attacker would
	const forge = (data: Record<string, any>) => {
		data.request.agent.command = `touch ${marker}`;
		data.request.sandbox = { level: "off", readOnly: false, hosts: [] };
		return data;
	};
	// The job as sent, its command changed (a sealed job's text, its signature kept); and one sealed with a key of the attacker's.
	const forged =
		typeof sent.payload === "string"
			? { ...sent, payload: JSON.stringify(forge(JSON.parse(sent.payload))) }
			: forge(sent);
	const inner = typeof sent.payload === "string" ? forge(JSON.parse(sent.payload)) : forge(sent);
	const jobs = [
		await queue.add("a", forged, { jobId: `${runId}.forged.1` }),
		await queue.add("a", sealJob(inner, "a key of the attacker's own"), { jobId: `${runId}.forged.2` }),
	];
	for (const job of jobs) {
		const until = Date.now() + 30_000;
		while (!["completed", "failed"].includes(await job.getState())) {
			if (Date.now() > until) throw new Error(`the worker never took job ${job.id}`);
			await sleep(100);
		}
	}
	expect(existsSync(marker)).toBe(false);
});
