// The quick-start demo: copies the sample repository and the sample team into a fresh git
// repository in a temporary folder, starts the scripted model server, and runs the team there
// with real pi processes and crew's live progress. With `--here [folder]` the team only looks
// around your own repository instead (the look-around workflow: every command it runs reads),
// from pi's agent folder of the demo, so nothing is added to the repository but crew's record of
// the run in .crew/. Only the model is scripted; with `--model <provider/model>` the same team
// runs on that real model instead, with pi's own configuration and credentials.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { scriptedCliSetup } from "../dist/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../dist/scripted-model/scripted-model-server.js";
import { sampleTeamScript } from "./scripted-team.mjs";

const args = process.argv.slice(2);
const argAfter = (flag) => {
	const at = args.indexOf(flag);
	const value = at >= 0 ? args[at + 1] : undefined;
	return value?.startsWith("--") ? undefined : value;
};
const realModel = argAfter("--model");
if (args.includes("--model") && !realModel) fail("--model needs a model, e.g. --model anthropic/claude-sonnet-4-5");
// npm runs scripts in the package's folder, and says where it was started in INIT_CWD.
const here = args.includes("--here") ? resolve(argAfter("--here") ?? process.env.INIT_CWD ?? process.cwd()) : undefined;

function fail(message) {
	console.error(`demo: ${message}`);
	process.exit(2);
}
if (here) {
	try {
		execFileSync("git", ["rev-parse", "--is-inside-work-tree"], { cwd: here, stdio: "ignore" });
	} catch {
		fail(`--here looks around a git repository, and ${here} is not in one`);
	}
}

const examples = fileURLToPath(new URL(".", import.meta.url));
const repo = here ?? sampleRepository();
const server = realModel ? undefined : await ScriptedModelServer.start(sampleTeamScript(repo));
const home = mkdtempSync(join(tmpdir(), "crew-demo-pi-"));
// pi's own folder for the scripted model; with a real model, the user's own pi folder.
const agentDir = server ? scriptedCliSetup("pi", server.url, home).env.PI_CODING_AGENT_DIR : undefined;
const env = { ...process.env, ...(agentDir ? { PI_CODING_AGENT_DIR: agentDir } : {}) };
if (here) {
	// crew reads agents, teams and workflows from pi's agent folder too: the sample team is found there.
	const teamDir = agentDir ?? join(home, "crew");
	cpSync(join(examples, "crew"), teamDir, { recursive: true });
	if (!agentDir) env.XDG_CONFIG_HOME = home;
	console.log(`your repository: ${repo} (the team only reads it; crew records the run in its .crew/)`);
} else console.log(`sample repository: ${repo}`);
if (server)
	console.log(`model: scripted, served on ${server.url} (no network, no API key); the agents are real pi processes\n`);
else console.log(`model: ${realModel}, through your pi configuration; the agents are real pi processes\n`);

/** A fresh git repository holding the sample repository and, in .crew/, the sample team. */
function sampleRepository() {
	const dir = mkdtempSync(join(tmpdir(), "crew-demo-"));
	cpSync(join(examples, "sample-repo"), dir, { recursive: true });
	cpSync(join(examples, "crew"), join(dir, ".crew"), { recursive: true });
	const git = (...gitArgs) => execFileSync("git", gitArgs, { cwd: dir, stdio: "ignore" });
	git("init", "-q");
	git("add", "-A");
	git("-c", "user.name=crew demo", "-c", "user.email=demo@crew.invalid", "commit", "-qm", "sample repository");
	return dir;
}

const crew = join(examples, "..", "bin", "crew.js");
const node = (crewArgs, stdio) =>
	new Promise((done) => {
		const child = spawn(process.execPath, [crew, ...crewArgs], { cwd: repo, env, stdio });
		let out = "";
		child.stdout?.on("data", (chunk) => {
			out += chunk;
		});
		child.on("close", (code) => done({ code, out }));
	});
const [goal, workflow] = here
	? ["what is in this repository", "look-around"]
	: ["slugs must be lower-case", "fix-and-verify"];
const run = await node(
	["run", goal, "--workflow", workflow, "--team", "sample", ...(realModel ? ["--model", realModel] : [])],
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
if (here && server) {
	console.log(
		'to run crew here on a real model: give pi your credentials as you normally would, then `crew init` and `crew run "<goal>" --team starter` (see crew doctor)',
	);
} else console.log(`look around: cd ${repo} && node ${crew} status`);
process.exitCode = run.code ?? 1;
