import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { crewProcess, waitFor } from "../../helpers.js";

/**
 * A `crew worker` on the queue at `url`, standing in for a machine of its own: its own name and
 * work folder (`<dir>/work-<name>`), two attempts at a time, and a short lock so a dead one is
 * noticed within seconds. It joins `started` at once, so a test's cleanup ends it whatever happens;
 * resolves once it takes attempts.
 */
export async function startWorker(
	url: string,
	name: string,
	dir: string,
	started: ChildProcess[],
): Promise<ChildProcess> {
	const worker = crewProcess(dir, [
		"worker",
		"--queue",
		url,
		"--concurrency",
		"2",
		"--name",
		name,
		"--workdir",
		join(dir, `work-${name}`),
		"--lock-duration",
		"1500",
	]);
	started.push(worker);
	let out = "";
	worker.stdout?.on("data", (chunk: Buffer) => {
		out += chunk.toString();
	});
	await waitFor(`worker ${name} ready`, () => out.includes("taking attempts"));
	return worker;
}
