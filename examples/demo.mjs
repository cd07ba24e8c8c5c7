// The quick-start demo: copies the sample repository and the sample team into a fresh git
// repository in a temporary folder, starts the scripted model server, and runs the team there
// with real pi processes and crew's live progress. Only the model is scripted; with
// `--model <provider/model>` the same team runs on that real model instead, with pi's own
// configuration and credentials.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scriptedCliSetup } from "../dist/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../dist/scripted-model/scripted-model-server.js";
import { sampleTeamScript } from "./scripted-team.mjs";

const flag = process.argv.indexOf("--model");
const realModel = flag >= 0 ? process.argv[flag + 1] : undefined;
if (flag >= 0 && !realModel) {
	console.error("demo: --model needs a model, e.g. --model anthropic/claude-sonnet-4-5");
	process.exit(2);
}
const here = fileURLToPath(new URL(".", import.meta.url));
const repo = mkdtempSync(join(tmpdir(), "crew-demo-"));
cpSync(join(here, "sample-repo"), repo, { recursive: true });
cpSync(join(here, "crew"), join(repo, ".crew"), { recursive: true });
const git = (...args) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
git("init", "-q");
git("add", "-A");
git("-c", "user.name=crew demo", "-c", "user.email=demo@crew.invalid", "commit", "-qm", "sample repository");

const server = realModel ? undefined : await ScriptedModelServer.start(sampleTeamScript(repo));
const env = { ...process.env };
console.log(`sample repository: ${repo}`);
if (server) {
	const pi = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-demo-pi-")));
	env.PI_CODING_AGENT_DIR = pi.env.PI_CODING_AGENT_DIR;
	console.log(`model: scripted, served on ${server.url} (no network, no API key); the agents are real pi processes\n`);
} else console.log(`model: ${realModel}, through your pi configuration; the agents are real pi processes\n`);

const crew = join(here, "..", "bin", "crew.js");
const node = (args, stdio) =>
	new Promise((resolve) => {
		const child = spawn(process.execPath, [crew, ...args], { cwd: repo, env, stdio });
		let out = "";
		child.stdout?.on("data", (chunk) => {
			out += chunk;
		});
		child.on("close", (code) => resolve({ code, out }));
	});
const run = await node(
	[
		"run",
		"slugs must be lower-case",
		"--workflow",
		"fix-and-verify",
		"--team",
		"sample",
		...(realModel ? ["--model", realModel] : []),
	],
	"inherit",
);
if (run.code === 0) {
	const runId = JSON.parse((await node(["status", "--json"], ["ignore", "pipe", "inherit"])).out).run.id;
	console.log(`\nthe reporter's result (crew result ${runId} report):`);
	await node(["result", runId, "report"], "inherit");
}
if (server) {
	await server.close();
	console.log(`\nthe model answered ${server.requests.length} requests from pi`);
}
console.log(`look around: cd ${repo} && node ${crew} status`);
process.exitCode = run.code ?? 1;
