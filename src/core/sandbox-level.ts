// Sandbox levels, and how far a run's and an attempt's processes are confined, as plain data.

import type { ResourceSource } from "./resource-source.js";

/**
 * How far a task's processes are confined: `off`, as the user's own; `workspace`, writing only to
 * their workspace and their CLI's own folders, with a /tmp of their own and secrets hidden;
 * `strict`, the same, and commands (command agents, checks, setup hooks) without a network.
 */
export const SANDBOX_LEVELS = ["off", "workspace", "strict"] as const;
export type SandboxLevel = (typeof SANDBOX_LEVELS)[number];

/** A level a resource file asks for, and the file: a project's file may only tighten the run's. */
export interface SandboxAsk {
	readonly level: SandboxLevel;
	readonly source?: ResourceSource;
}

/**
 * The run's sandbox: its level (flag, else user config, else the machine's default), its team's
 * ask, and the hosts the user lets confined agents reach beside their model provider's
 * (`host:port`, from the user's config).
 */
export interface RunSandbox {
	readonly level: SandboxLevel;
	readonly team?: SandboxAsk;
	readonly hosts?: readonly string[];
}

/**
 * Where a confined attempt's processes may connect: `host`, the network as it is (commands at
 * `workspace`); `none`, a loopback of their own (commands at `strict`); else only these hosts
 * (`host:port`), through crew's gate (agent CLIs at either level).
 */
export type SandboxNetwork = "host" | "none" | readonly string[];

/** A host and port a confined agent may reach. */
export interface HostPort {
	readonly host: string;
	readonly port: number;
}

/** `host:port` as a user writes it (`[::1]:8080` for IPv6), checked; undefined when it is not one. */
export function parseHostPort(text: string): HostPort | undefined {
	const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/.exec(text);
	const port = Number(match?.[2]);
	if (!match || port < 1 || port > 65535) return undefined;
	return { host: (match[1] as string).replace(/^\[|\]$/g, "").toLowerCase(), port };
}

/** The hosts a process reaches at its own (`own`, an agent CLI's model) and those the user allows (`host:port`), each once. */
export function reachable(own: readonly HostPort[], user: readonly string[]): HostPort[] {
	const all = [...own, ...user.flatMap((text) => parseHostPort(text) ?? [])];
	return all.filter((a, i) => all.findIndex((b) => b.host === a.host && b.port === a.port) === i);
}

export function hostPortText({ host, port }: HostPort): string {
	return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The toolchain caches of crew's a confined attempt's processes wrote to: the folder, and the toolchains pointed into it. */
export interface CachesRecord {
	readonly folder: string;
	readonly tools: readonly string[];
}

/** What an attempt's processes are confined to, decided where the run is planned; plain data. */
export interface AttemptSandbox {
	readonly level: SandboxLevel;
	/** The workspace is read-only: a reviewer, or an agent without a tool that writes. */
	readonly readOnly: boolean;
	/** crew's own state, hidden: its store, and every run's files but the attempt's own. */
	readonly hide: readonly string[];
	/**
	 * crew's folder in the repository, hidden above, of which what is not crew's state (`CREW_STATE`:
	 * the tracked agents, teams, workflows, knowledge, config) shows again, read-only.
	 */
	readonly resources?: string;
	/** Folders read that may be out of sight: the repository a task's worktree belongs to. */
	readonly show: readonly string[];
	/** Hosts (`host:port`) its agent may reach beside its model provider's: the user's. */
	readonly hosts: readonly string[];
}

/** Whether an attempt's processes are confined at all. */
export function isConfined(sandbox: { readonly level: SandboxLevel } | undefined): boolean {
	return sandbox !== undefined && sandbox.level !== "off";
}

/**
 * The hosts a sandbox's line names one by one; past this many it says how many, as an agent with
 * no model of its own may reach every host its CLI knows (pi: some thirty).
 */
const HOSTS_NAMED = 4;

/**
 * How a recorded sandbox reads in views, one short line: `sandbox workspace, read-only, network
 * api.x.com:443`, `sandbox strict, no network`, or `unconfined`. More hosts than `HOSTS_NAMED` are
 * counted (`network of 31 hosts`), with `listed`, where the whole list is to be seen, when given.
 */
export function sandboxText(
	sandbox: {
		readonly level: SandboxLevel;
		readonly readOnly: boolean;
		readonly network?: SandboxNetwork;
	},
	listed?: string,
): string {
	if (sandbox.level === "off") return "unconfined";
	const { network } = sandbox;
	const where = listed ? ` (${listed} lists them)` : "";
	const reach =
		network === undefined || network === "host"
			? ""
			: network === "none" || network.length === 0
				? ", no network"
				: network.length > HOSTS_NAMED
					? `, network of ${network.length} hosts${where}`
					: `, network ${network.join(" ")}`;
	return `sandbox ${sandbox.level}${sandbox.readOnly ? ", read-only" : ""}${reach}`;
}

export function isSandboxLevel(value: unknown): value is SandboxLevel {
	return typeof value === "string" && (SANDBOX_LEVELS as readonly string[]).includes(value);
}

/** Whether `a` confines less than `b`. */
export function looser(a: SandboxLevel, b: SandboxLevel): boolean {
	return SANDBOX_LEVELS.indexOf(a) < SANDBOX_LEVELS.indexOf(b);
}
