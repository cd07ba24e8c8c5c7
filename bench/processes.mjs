/** Child processes of the benches: spawned, drained and timed from spawn to exit. */
import { spawn, spawnSync } from "node:child_process";

/** Spawns a process with stdout and stderr drained into strings; resolves with its wall time. */
export function run(command, args, options = {}) {
	return new Promise((resolve, reject) => {
		const start = performance.now();
		const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr.setEncoding("utf8").on("data", (chunk) => {
			stderr += chunk;
		});
		child.on("error", reject);
		child.on("close", (code) => {
			const ms = performance.now() - start;
			if (code !== 0) reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${stderr}`));
			else resolve({ ms, stdout, stderr });
		});
	});
}

/** The last line of a child's stdout, parsed: one-run.mjs and `crew run --json` end with their result. */
export function lastJsonLine(stdout) {
	return JSON.parse(stdout.trim().split("\n").at(-1));
}

/** The commit of `root` measured, marked dirty when src/ has uncommitted changes: src/ changes under the bench. */
export function sourceVersion(root) {
	const git = (...args) => spawnSync("git", args, { cwd: root, encoding: "utf8" }).stdout?.trim() ?? "";
	const commit = git("rev-parse", "--short", "HEAD") || "unknown";
	return git("status", "--porcelain", "--", "src") === "" ? commit : `${commit}+dirty`;
}
