/**
 * Redaction of long lines: the time to redact 4 MiB of each input that made a backtracking
 * pattern slow (one base64url run, `x-x-x-…`, `ab.ab.ab…`, `eyJ-eyJ-…`, mixed text), medians of
 * several runs in one process (target under 100 ms each). Runs `dist/`; writes
 * bench/results/redaction.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { redact } from "../dist/core/redact.js";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RESULTS = join(ROOT, "bench", "results", "redaction.json");
const LENGTH = SMOKE ? 64 * 1024 : 4 * 1024 * 1024;
const ROUNDS = SMOKE ? 1 : 7;
const TARGET_MS = 100;
const BASE64URL = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

/** `LENGTH` characters of `unit` repeated. */
function repeated(unit) {
	return unit.repeat(Math.ceil(LENGTH / unit.length)).slice(0, LENGTH);
}

const inputs = {
	"base64url run": Array.from({ length: LENGTH }, (_, i) => BASE64URL[(i * 7919) % 64]).join(""),
	"x-x-x-…": repeated("x-"),
	"ab.ab.ab…": repeated("ab."),
	"eyJ-eyJ-…": repeated("eyJ-"),
	"mixed text": repeated('const token = fn(a.b.c); "key": x-y-z https://h.io/a?b=1 eyJabc.eyJdef ab.ab sk-x AIza '),
};

const results = { lengthBytes: LENGTH, rounds: ROUNDS, targetMs: TARGET_MS, medianMs: {} };
for (const [name, text] of Object.entries(inputs)) {
	const times = [];
	for (let round = 0; round < ROUNDS; round++) {
		const start = performance.now();
		redact(text);
		times.push(performance.now() - start);
	}
	const ms = Math.round(median(times) * 10) / 10;
	results.medianMs[name] = ms;
	log(`redact ${LENGTH / 1024} KiB, ${name}: ${ms} ms (median of ${ROUNDS}; target under ${TARGET_MS} ms)`);
}
if (!SMOKE) {
	mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
	writeFileSync(RESULTS, `${JSON.stringify(results, null, "\t")}\n`);
}
process.stdout.write(`${JSON.stringify(results)}\n`);
