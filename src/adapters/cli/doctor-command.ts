// `crew doctor`: checks of the runtimes, agent CLIs, credentials, sandbox and store crew would use here.

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type NotifyTarget, targetName } from "../../config/notify-targets.js";
import { findProject, type Project } from "../../config/project.js";
import { resourceLayers, userConfigDir, userResourceDirs } from "../../config/resource-layers.js";
import { type AgentCliName, loadSettings, type Settings } from "../../config/settings.js";
import { errorMessage } from "../../core/errors.js";
import type { SandboxLevel } from "../../core/sandbox-level.js";
import { RunReader } from "../../engine/views/reader.js";
import { DEFAULT_AGENT_RUNTIME } from "../../resources/agent-file.js";
import { ResourceLoader } from "../../resources/resource-loader.js";
import { type Check, readiness } from "../../runtimes/agent/cli-readiness.js";
import {
	claudeCredentials,
	codexCredentials,
	credentialVariables,
	piCredentials,
} from "../../runtimes/agent/credentials.js";
import { agentEnvironment } from "../../runtimes/agent/environment.js";
import { piExtensionsCheck } from "../../runtimes/pi/extensions-check.js";
import { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import { findBwrap, findSocat, NO_SANDBOX } from "../../runtimes/sandbox/confine.js";
import { cachesRoot } from "../../runtimes/toolchains/caches.js";
import { cliProgram } from "../shared/cli-program.js";
import { configuredRuntimes } from "../shared/configured-runtimes.js";
import { NOTIFY_FAILURES_KEPT_MS } from "../shared/inbox.js";
import { smokeCheck } from "./doctor-smoke.js";
import { Exit } from "./exit-codes.js";
import { print } from "./print.js";

/** Runs `<program> --version`; the first line of its answer, or why there is none. */
function version(command: readonly string[]): Promise<{ ok: boolean; detail: string }> {
	const [file, ...args] = command;
	return new Promise((resolve) => {
		execFile(file as string, [...args, "--version"], { timeout: 20_000 }, (error, stdout, stderr) => {
			if (error) {
				const code = (error as NodeJS.ErrnoException).code;
				resolve({ ok: false, detail: code === "ENOENT" ? "not found on PATH" : (error.message.split("\n")[0] ?? "") });
			} else resolve({ ok: true, detail: (stdout.trim() || stderr.trim()).split("\n")[0] ?? "" });
		});
	});
}

/**
 * Names of the credential variables each agent CLI would see (pi with no model of its own: a model
 * narrows it to its provider's); never values, nor the settings it sees beside them.
 */
function credentialNames(): { runtime: string; names: string[] }[] {
	const rules = [
		{ runtime: "pi", credentials: piCredentials(undefined, process.env) },
		{ runtime: "claude", credentials: claudeCredentials() },
		{ runtime: "codex", credentials: codexCredentials(process.env) },
	];
	return rules.map(({ runtime, credentials }) => ({
		runtime,
		names: credentialVariables(credentials, Object.keys(agentEnvironment(process.env, {}, credentials))).sort(),
	}));
}

function storeCheck(project: Project | undefined, notFound: string): Check {
	if (!project) return { name: "store", ok: false, detail: notFound };
	let reader: RunReader;
	try {
		reader = new RunReader(project);
	} catch (error) {
		return { name: "store", ok: false, detail: errorMessage(error) };
	}
	try {
		const health = reader.repo.health();
		const detail = health.exists
			? `${health.file}: ${health.check}, schema ${health.schemaVersion}, ${health.runs} runs`
			: `${health.file}: ${health.check}`;
		return { name: "store", ok: !health.exists || health.check === "ok", detail };
	} finally {
		reader.close();
	}
}

/** The user's notify targets, and the notifications that failed in the last week. */
function notifyCheck(project: Project, targets: readonly NotifyTarget[], env: NodeJS.ProcessEnv): Check {
	const reader = new RunReader(project);
	try {
		const failed = reader.repo.failedNotifications(new Date(Date.now() - NOTIFY_FAILURES_KEPT_MS).toISOString());
		const latest = failed.at(-1);
		const names = `${targets.length} ${targets.length === 1 ? "target" : "targets"}: ${targets.map(targetName).join(", ")}`;
		if (!latest) return { name: "notify", ok: true, detail: names };
		return {
			name: "notify",
			ok: false,
			detail: `${names}; ${failed.length} failed this week, latest: ${latest.target}, run ${latest.runId}'s ${latest.event}: ${latest.error}`,
			fix: `check "notify" in ${join(userConfigDir(env), "config.json")}`,
		};
	} finally {
		reader.close();
	}
}

const AGENT_CLIS: readonly AgentCliName[] = ["pi", "claude", "codex"];

/**
 * The agent CLIs this repository's agents (builtin, the user's, the project's) use, with the
 * models they name (fallbacks too); outside a repository, pi with its default model.
 */
function runtimeUses(project: Project | undefined): Map<AgentCliName, Map<string | undefined, string[]>> {
	const uses = new Map<AgentCliName, Map<string | undefined, string[]>>();
	const add = (runtime: string, model: string | undefined, agent: string) => {
		const cli = AGENT_CLIS.find((c) => c === runtime);
		if (!cli) return;
		const models = uses.get(cli) ?? new Map<string | undefined, string[]>();
		models.set(model, [...(models.get(model) ?? []), agent]);
		uses.set(cli, models);
	};
	if (!project) {
		uses.set(DEFAULT_AGENT_RUNTIME, new Map([[undefined, []]]));
		return uses;
	}
	const loader = new ResourceLoader({ layers: resourceLayers(project, userResourceDirs()), cwd: project.root });
	for (const { name, item } of loader.list("agent").items) {
		if (!item) continue;
		for (const model of [item.model, ...(item.fallbackModels ?? [])]) add(item.runtime, model, name);
	}
	return uses;
}

/** Whether tasks can be confined here, and the level runs get when they ask for none. */
function sandboxCheck(configured: SandboxLevel | undefined, hosts: readonly string[], env: NodeJS.ProcessEnv): Check {
	const bwrap = findBwrap(env.PATH);
	const socat = findSocat(env.PATH);
	const level = configured ?? (bwrap && socat ? "workspace" : "off");
	const by = configured ? "your config.json" : "the default";
	if (bwrap && socat)
		return {
			name: "sandbox",
			ok: true,
			detail: `bubblewrap ${bwrap}, socat ${socat}; runs are confined at ${level} (${by}); agents reach their model's hosts${hosts.length > 0 ? ` and ${hosts.join(", ")}` : `, and no package registry ("sandbox": {"registries": ["npm", …]} in your config.json allows them)`}; package managers' caches are crew's own, under ${cachesRoot(env)}`,
		};
	if (configured === "off")
		return { name: "sandbox", ok: true, detail: "off in your config.json: tasks run unconfined" };
	return {
		name: "sandbox",
		ok: false,
		detail: `${NO_SANDBOX}; ${configured ? `runs are refused, as your config.json asks for ${configured}` : "tasks run unconfined"}`,
		fix: 'apt-get install bubblewrap socat (Debian/Ubuntu), or set "sandbox": "off" in your crew config.json to run unconfined on purpose',
	};
}

/** One agent CLI's checks: its program (and pi's extensions), its readiness, its smoke call; which are required. */
interface CliChecks {
	readonly program: readonly Check[];
	readonly readiness: readonly Check[];
	readonly smoke: Check | undefined;
	readonly required: readonly Check[];
}

/**
 * The checks of agent CLI `name`, which the repository's agents use with `used` models (or not at
 * all): whether its program runs, and when it does and is used, whether it is ready; with `smoke`,
 * one real call through it, or why none was tried. Only a used CLI's checks are required.
 */
async function cliChecks(
	name: AgentCliName,
	used: Map<string | undefined, string[]> | undefined,
	settings: Settings | undefined,
	env: NodeJS.ProcessEnv,
	smoke: RuntimeRegistry | undefined,
): Promise<CliChecks> {
	let command: readonly string[] | undefined;
	let program: { ok: boolean; detail: string };
	try {
		const chosen = cliProgram(name, settings, env);
		command = chosen.command;
		const said = await version(command);
		program = { ok: said.ok, detail: `${said.detail}: ${chosen.file} (${chosen.rule})` };
	} catch (error) {
		program = { ok: false, detail: errorMessage(error) };
	}
	const fix = `install ${name}, or name its program in CREW_${name.toUpperCase()} or your crew config.json (runtimes.${name})`;
	const runs = {
		name: `runtime ${name}${name === DEFAULT_AGENT_RUNTIME ? " (default)" : ""}`,
		...program,
		...(program.ok || !used ? {} : { fix }),
	};
	const use = used && command && program.ok ? { runtime: name, command, models: used } : undefined;
	// pi's extensions and a CLI's readiness each start it apart: they run side by side.
	const [extensions, ready] = await Promise.all([
		name === "pi" && command && program.ok ? piExtensionsCheck(command, env) : undefined,
		use ? readiness(use, env) : [],
	]);
	const programChecks = extensions ? [runs, extensions] : [runs];
	if (!used) return { program: programChecks, readiness: [], smoke: undefined, required: [] };
	const runnable = use !== undefined && ready.every((c) => c.ok);
	const notTried = { name: `${name} smoke`, ok: false, detail: `not tried: ${name} is not ready (see above)` };
	const smoked = smoke && (use && runnable ? await smokeCheck(smoke.get(name), use) : notTried);
	const all = [...programChecks, ...ready, ...(smoked ? [smoked] : [])];
	return { program: programChecks, readiness: ready, smoke: smoked, required: all };
}

/**
 * What this machine offers crew: the runtimes and their versions, the credentials agents would
 * see (names only), and the store's health; then, for each agent CLI the repository's agents use,
 * whether it runs, which models it would use and whether it has credentials for them (no model is
 * called), each failure with its fix. `smoke` adds one small real call per such CLI. Not `ok`
 * when a used CLI is not ready, a smoke call fails, or the store is damaged.
 */
export async function doctorReport(
	options: { smoke?: boolean },
	cwd = process.cwd(),
): Promise<{ checks: Check[]; ok: boolean }> {
	const env = process.env;
	let project: Project | undefined;
	let notFound = "";
	try {
		project = findProject(cwd);
	} catch (error) {
		notFound = errorMessage(error);
	}
	const checks: Check[] = [];
	const required = new Set<Check>();
	let settings: Settings | undefined;
	try {
		settings = project ? loadSettings(project, env) : undefined;
	} catch (error) {
		const check = { name: "settings", ok: false, detail: errorMessage(error) };
		checks.push(check);
		required.add(check);
	}
	const uses = runtimeUses(project);
	const smoke = options.smoke
		? settings
			? configuredRuntimes(settings, env)
			: RuntimeRegistry.standard({ env })
		: undefined;
	// Each CLI's checks wait on its own processes only: they run side by side, reported in this order.
	const clis = await Promise.all(AGENT_CLIS.map((name) => cliChecks(name, uses.get(name), settings, env, smoke)));
	for (const cli of clis) {
		checks.push(...cli.program);
		for (const check of cli.required) required.add(check);
	}
	checks.push({ name: "runtime command", ok: existsSync("/bin/sh"), detail: "/bin/sh" });
	checks.push({ name: "runtime dry-run", ok: true, detail: "built in" });
	const sandbox = sandboxCheck(settings?.sandbox, settings?.sandboxHosts ?? [], env);
	checks.push(sandbox);
	if (settings?.sandbox !== undefined && settings.sandbox !== "off") required.add(sandbox);
	// Nothing found is not good news: said as a shortfall, though a login in the CLI's own files may do.
	for (const { runtime, names } of credentialNames()) {
		const name = `credentials for ${runtime}`;
		if (names.length > 0) checks.push({ name, ok: true, detail: names.join(", ") });
		else
			checks.push({
				name,
				ok: false,
				detail: "none in the environment; a login kept in the CLI's own files is not looked for here",
				fix: `export a provider's key, or log in with ${runtime} itself; crew doctor --smoke makes one real call to be sure`,
			});
	}
	const store = storeCheck(project, notFound);
	checks.push(store);
	required.add(store);
	if (project && settings?.notify) checks.push(notifyCheck(project, settings.notify, env));
	for (const cli of clis) checks.push(...cli.readiness);
	for (const cli of clis) if (cli.smoke) checks.push(cli.smoke);
	return { checks, ok: [...required].every((c) => c.ok) };
}

/** `crew doctor`: the checks of `doctorReport`, one a line (or as JSON); exits 1 unless ok. */
export async function doctorCommand(options: { json?: boolean; smoke?: boolean }): Promise<number> {
	const { checks, ok } = await doctorReport(options);
	if (options.json) print(`${JSON.stringify({ checks })}\n`);
	else {
		for (const c of checks) {
			print(`${c.ok ? "ok  " : "--  "}${c.name}: ${c.detail}\n`);
			if (c.fix) print(`    fix: ${c.fix}\n`);
		}
	}
	return ok ? Exit.Ok : Exit.Failed;
}
