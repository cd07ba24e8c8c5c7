// Runs one command to its end and writes the CPU seconds it spent to a file, for test/loop/tiers.mjs.

/**
 * `node test/loop/counted.mjs <out-file> <program> [arguments]`: the CPU time counted is what the
 * command and the descendants it waited for spent (this process's `cutime` and `cstime` in
 * /proc/self/stat), so tiers running at once are each counted apart. The exit code is the
 * command's, or 1 when a signal ended it.
 */
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const [out, program, ...args] = process.argv.slice(2);
if (!out || !program) throw new Error("usage: node test/loop/counted.mjs <out-file> <program> [arguments]");
/** Clock ticks per second, the unit of /proc's CPU times. */
const TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString()) || 100;

const child = spawn(program, args, { stdio: "inherit" });
child.once("error", (error) => {
	process.stderr.write(`${program}: ${error.message}\n`);
	process.exitCode = 1;
});
child.once("exit", (status, signal) => {
	const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
	writeFileSync(out, String((Number(fields[13]) + Number(fields[14])) / TICKS));
	process.exitCode = status ?? (signal ? 1 : 0);
});
