import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { scriptedCliSetup } from "../../src/scripted-model/cli-setup.js";
import { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import { sequence, type Turn } from "../../src/scripted-model/turns.js";
import { type CliResult, crew } from "../helpers.js";

/** The secret planted in every credential file of an attacker's victim: no request to the model may carry it. */
export const SECRET = "PLANTED-SECRET-4711";

/** A user's machine under attack: a home with credentials, a repository the user has not trusted, and a place outside both. */
export interface Victim {
	/** Outside the repository and the home: what lands here escaped. */
	readonly base: string;
	readonly home: string;
	/** An untrusted git repository with one commit. */
	readonly repo: string;
	/** The environment crew and the user's own programs run with. */
	readonly env: NodeJS.ProcessEnv;
	/** Runs `git` as the user would in `cwd` (the repository by default). */
	git(args: readonly string[], cwd?: string): string;
	/** Runs crew as the user would in `cwd` (the repository by default). */
	crew(args: readonly string[], cwd?: string): Promise<CliResult>;
	/**
	 * One agent run by the user in the repository (`crew agent` with crew's executor on pi, confined
	 * at `workspace` unless `sandbox` says otherwise) whose model, as an injected prompt would make
	 * it, plays each of `steps`: a string is a command for its shell tool. The model's requests
	 * (which carry what the commands printed) are returned with crew's own result.
	 */
	agent(
		steps: readonly (string | Turn)[],
		options?: {
			readonly workspace?: "shared" | "worktree";
			readonly sandbox?: "workspace" | "strict";
			/** The agent the user names; crew's executor by default. */
			readonly agentName?: string;
			/** A workflow of the user's to run instead (\`crew run\`), its agents' own runtimes kept. */
			readonly workflow?: string;
		},
	): Promise<{ readonly result: CliResult; readonly seen: string }>;
}

/** Starts each test's victim, and closes its model servers after the test. */
export function victims(): () => Victim {
	const servers: ScriptedModelServer[] = [];
	afterEach(async () => {
		for (const server of servers.splice(0)) await server.close();
	});
	return () => victim(servers);
}

function victim(servers: ScriptedModelServer[]): Victim {
	const base = mkdtempSync(join(tmpdir(), "crew-attack-"));
	const home = join(base, "home");
	const repo = join(base, "repo");
	mkdirSync(repo, { recursive: true });
	mkdirSync(home, { recursive: true });
	const env: NodeJS.ProcessEnv = {
		...process.env,
		HOME: home,
		XDG_CONFIG_HOME: join(home, ".config"),
		XDG_RUNTIME_DIR: join(base, "run-user"),
		GIT_AUTHOR_NAME: "victim",
		GIT_AUTHOR_EMAIL: "victim@localhost",
		GIT_COMMITTER_NAME: "victim",
		GIT_COMMITTER_EMAIL: "victim@localhost",
	};
	mkdirSync(env.XDG_RUNTIME_DIR as string, { recursive: true });
	const git = (args: readonly string[], cwd = repo) =>
		execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: "pipe" }).trim();
	git(["init", "-q", "-b", "main"]);
	writeFileSync(join(repo, "README.md"), "a project\n");
	git(["add", "-A"]);
	git(["commit", "-q", "-m", "start"]);
	const run = (args: readonly string[], cwd = repo) => crew(cwd, args, 90_000, env);
	let scripted: ReturnType<typeof scriptedCliSetup> | undefined;
	return {
		base,
		home,
		repo,
		env,
		git,
		crew: run,
		async agent(steps, options = {}) {
			const turns = steps.map((step): Turn => (typeof step === "string" ? { kind: "shell", command: step } : step));
			const server = await ScriptedModelServer.start(sequence(turns, { kind: "text", text: "done" }));
			servers.push(server);
			// The CLI's configuration lives in the victim's home, where the user's would.
			scripted = scriptedCliSetup("pi", server.url, home);
			Object.assign(env, scripted.env);
			const args = options.workflow
				? ["run", "do the task", "--workflow", options.workflow, "--model", scripted.model]
				: ["agent", "do the task", "--runtime", "pi", "--model", scripted.model];
			args.push("--sandbox", options.sandbox ?? "workspace");
			if (options.workspace) args.push("--workspace", options.workspace);
			if (options.agentName) args.push("--agent", options.agentName);
			const result = await run(args);
			const seen = server.requests.map((request) => request.messages.map((m) => m.text).join("\n")).join("\n");
			return { result, seen };
		},
	};
}
