/**
 * What looking for the git folders a task left costs an attempt: crew walks its workspace when
 * the attempt begins and when it ends (`gitFolders`), ignored folders too. Measured on a tree
 * shaped like a Node project's, a few source folders beside a `node_modules` of `PACKAGES`
 * packages of 6 folders and 40 files each: a walk of it all, and a walk that takes from an earlier
 * one each folder unchanged since (a later attempt's, or an attempt's end). Writes
 * bench/results/git-folders.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gitFolders } from "../dist/workspace/git-surfaces/git-folders.js";
import { sourceVersion } from "./processes.mjs";
import { log, median, SMOKE } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PACKAGES = SMOKE ? 20 : 800;
const ROUNDS = SMOKE ? 1 : 15;

const dir = mkdtempSync(join("/var/tmp", "crew-bench-git-folders-"));
for (let p = 0; p < PACKAGES; p++) {
	for (const folder of ["", "lib", "lib/a", "lib/b", "dist", "types"]) {
		const path = join(dir, "node_modules", `package-${p}`, folder);
		mkdirSync(path, { recursive: true });
		for (let f = 0; f < 7; f++) writeFileSync(join(path, `file-${f}.js`), "");
	}
}
for (let s = 0; s < 20; s++) mkdirSync(join(dir, "src", `part-${s}`), { recursive: true });

const full = [];
const again = [];
let folders = 0;
for (let i = 0; i < ROUNDS; i++) {
	let start = performance.now();
	const first = gitFolders(dir);
	full.push(performance.now() - start);
	folders = first.listing.size;
	// As a walk a few seconds after the tree last changed would find it.
	start = performance.now();
	gitFolders(dir, { listing: first.listing, at: Date.now() + 10_000 });
	again.push(performance.now() - start);
}
rmSync(dir, { recursive: true, force: true });
const result = {
	version: sourceVersion(ROOT),
	folders,
	fullWalkMs: median(full),
	walkFromEarlierMs: median(again),
};
log(
	`git folders: ${folders} folders; a whole walk ${result.fullWalkMs.toFixed(1)} ms, one from an earlier walk ${result.walkFromEarlierMs.toFixed(1)} ms (medians of ${ROUNDS})`,
);
process.stdout.write(`${JSON.stringify(result)}\n`);
if (!SMOKE) {
	mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
	writeFileSync(join(ROOT, "bench", "results", "git-folders.json"), `${JSON.stringify(result, null, "\t")}\n`);
}
