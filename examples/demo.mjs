// The quick-start demo: copies the sample repository and the sample team into a fresh git
// repository in a temporary folder, then runs the team there with crew's live progress.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const repo = mkdtempSync(join(tmpdir(), "crew-demo-"));
cpSync(join(here, "sample-repo"), repo, { recursive: true });
cpSync(join(here, "crew"), join(repo, ".crew"), { recursive: true });
const git = (...args) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
git("init", "-q");
git("add", "-A");
git("-c", "user.name=crew demo", "-c", "user.email=demo@crew.invalid", "commit", "-qm", "sample repository");

console.log(`sample repository: ${repo}\n`);
const crew = join(here, "..", "bin", "crew.js");
const run = spawnSync(
	process.execPath,
	[crew, "run", "slugs must be lower-case", "--workflow", "fix-and-verify", "--team", "sample"],
	{ cwd: repo, stdio: "inherit" },
);
if (run.status === 0) {
	const status = spawnSync(process.execPath, [crew, "status", "--json"], { cwd: repo, encoding: "utf8" });
	const runId = JSON.parse(status.stdout).run.id;
	console.log(`\nthe reporter's result (crew result ${runId} report):`);
	spawnSync(process.execPath, [crew, "result", runId, "report"], { cwd: repo, stdio: "inherit" });
}
console.log(`\nlook around: cd ${repo} && node ${crew} status`);
process.exitCode = run.status ?? 1;
