// The quick-start demo: copies the sample repository and the sample team into a fresh git
// repository in a temporary folder, starts the scripted model server, and runs the team there
// with real pi processes and crew's live progress. Only the model is scripted.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scriptedCliSetup } from "../dist/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../dist/scripted-model/scripted-model-server.js";
import { sampleTeamScript } from "./scripted-team.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const repo = mkdtempSync(join(tmpdir(), "crew-demo-"));
cpSync(join(here, "sample-repo"), repo, { recursive: true });
cpSync(join(here, "crew"), join(repo, ".crew"), { recursive: true });
const git = (...args) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
git("init", "-q");
git("add", "-A");
git("-c", "user.name=crew demo", "-c", "user.email=demo@crew.invalid", "commit", "-qm", "sample repository");

const server = await ScriptedModelServer.start(sampleTeamScript(repo));
const pi = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-demo-pi-")));
console.log(`sample repository: ${repo}`);
console.log(`model: scripted, served on ${server.url} (no network, no API key); the agents are real pi processes\n`);

const crew = join(here, "..", "bin", "crew.js");
const env = { ...process.env, PI_CODING_AGENT_DIR: pi.env.PI_CODING_AGENT_DIR };
const node = (args, stdio) =>
	new Promise((resolve) => {
		const child = spawn(process.execPath, [crew, ...args], { cwd: repo, env, stdio });
		let out = "";
		child.stdout?.on("data", (chunk) => {
			out += chunk;
		});
		child.on("close", (code) => resolve({ code, out }));
	});
const run = await node(["run", "slugs must be lower-case", "--workflow", "fix-and-verify", "--team", "sample"], "inherit");
if (run.code === 0) {
	const runId = JSON.parse((await node(["status", "--json"], ["ignore", "pipe", "inherit"])).out).run.id;
	console.log(`\nthe reporter's result (crew result ${runId} report):`);
	await node(["result", runId, "report"], "inherit");
}
await server.close();
console.log(`\nthe model answered ${server.requests.length} requests from pi`);
console.log(`look around: cd ${repo} && node ${crew} status`);
process.exitCode = run.code ?? 1;
