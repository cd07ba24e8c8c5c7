// @module-tag agent-cli
// @slow: runs every crew example of the README against the sample repository, real pi agents included
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import type { Script } from "../../src/scripted-model/turns.js";
import { crew, ROOT } from "../helpers.js";

// The sample team's script plays the tasks it knows; any other task (the starter's, the default
// team's) answers at once, with a verdict for the steps that need one.
const { sampleTeamScript } = (await import(join(ROOT, "examples", "scripted-team.mjs"))) as {
	sampleTeamScript: (repo: string) => Script;
};

const servers: ScriptedModelServer[] = [];
afterAll(async () => {
	for (const server of servers) await server.close();
});

/** The fenced lines that start with `crew ` in the README's sections named `titles` (with their subsections). */
function examples(readme: string, titles: readonly string[]): string[] {
	const found: string[] = [];
	let inSection = false;
	let fenced = false;
	for (const line of readme.split("\n")) {
		if (line.startsWith("## ")) inSection = titles.includes(line.slice(3).trim());
		if (!inSection) continue;
		if (line.startsWith("```")) fenced = !fenced;
		else if (fenced && line.startsWith("crew ")) found.push(line);
	}
	return found;
}

/** A command line's words: `"…"` quotes one word; a `#` after a space starts a comment. */
function words(line: string): string[] {
	const out: string[] = [];
	const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
	for (const match of line.matchAll(pattern)) {
		if (match[3]?.startsWith("#")) break;
		out.push(match[1] ?? match[2] ?? match[3] ?? "");
	}
	return out;
}

/** A git repository made of the sample repository and the sample team, as the demo makes it. */
function sampleRepository(): string {
	const repo = mkdtempSync(join(tmpdir(), "crew-readme-"));
	cpSync(join(ROOT, "examples", "sample-repo"), repo, { recursive: true });
	cpSync(join(ROOT, "examples", "crew"), join(repo, ".crew"), { recursive: true });
	const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
	git("init", "-q");
	git("add", "-A");
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sample repository");
	return repo;
}

test("every fenced crew example of the README's quick start, first run and concepts runs against the sample repository", async () => {
	const lines = examples(readFileSync(join(ROOT, "README.md"), "utf8"), [
		"Quick start",
		"A first real run",
		"Concepts",
	]);
	expect(lines.length).toBeGreaterThanOrEqual(8);
	const repo = sampleRepository();
	const sample = sampleTeamScript(repo);
	const server = await ScriptedModelServer.start((request) => {
		const turn = sample(request);
		return turn.kind === "text" && turn.text === "nothing scripted for this task"
			? { kind: "text", text: "done\nPASS" }
			: turn;
	});
	servers.push(server);
	const pi = scriptedCliSetup("pi", server.url, mkdtempSync(join(tmpdir(), "crew-readme-pi-")));
	// Agents that name no model (the starter's, the default team's) get pi's default: the scripted one.
	const settings = join(pi.env.PI_CODING_AGENT_DIR as string, "settings.json");
	const [provider, model] = pi.model.split("/");
	writeFileSync(
		settings,
		JSON.stringify({ ...JSON.parse(readFileSync(settings, "utf8")), defaultProvider: provider, defaultModel: model }),
	);
	const env = { ...process.env, ...pi.env };

	const outcomes: { line: string; code: number; said: string }[] = [];
	for (const line of lines) {
		const args = words(line).slice(1);
		if (args.some((a) => a.includes("<runId>"))) {
			const runs = JSON.parse((await crew(repo, ["runs", "--json"], 60_000, env)).stdout) as { id: string }[];
			const latest = runs[0]?.id as string;
			for (let i = 0; i < args.length; i++) args[i] = (args[i] as string).replace("<runId>", latest);
		}
		const result = await crew(repo, args, 180_000, env);
		outcomes.push({ line, code: result.code, said: `${result.stdout}\n${result.stderr}`.slice(-2000) });
	}
	const failed = outcomes.filter((o) => o.code !== 0);
	expect(failed, JSON.stringify(failed, null, 1)).toEqual([]);
	const runs = JSON.parse((await crew(repo, ["runs", "--json"], 60_000, env)).stdout) as { status: string }[];
	expect(runs.length).toBeGreaterThanOrEqual(4);
	expect(runs.map((r) => r.status)).toEqual(runs.map(() => "completed"));
}, 600_000);
