// The `notify` targets of a config file (webhooks, commands, ntfy) and the run events each wants.

import { CrewError, ErrorCode } from "../core/errors.js";

/** What a target may be told of: a run's end, its failure, its wait for a person, 80% of its budget. */
export const NOTIFY_EVENTS = ["ended", "failed", "waiting", "budget"] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** A URL crew posts each event to, as crew's JSON or a Slack-compatible `{text}` body. */
export interface WebhookTarget {
	readonly webhook: string;
	/** Signs each body: `X-Crew-Signature: sha256=<HMAC-SHA256 of the body, hex>`. */
	readonly secret?: string;
	readonly format?: "json" | "slack";
	readonly events?: readonly NotifyEvent[];
}
/** A command crew runs with each event's JSON on its stdin. */
export interface CommandTarget {
	readonly command: string;
	readonly events?: readonly NotifyEvent[];
}
/** An ntfy topic's URL. */
export interface NtfyTarget {
	readonly ntfy: string;
	readonly events?: readonly NotifyEvent[];
}
export type NotifyTarget = WebhookTarget | CommandTarget | NtfyTarget;

const SHAPES = "expected {webhook, secret?, format?, events?}, {command, events?} or {ntfy, events?}";
/** Each kind of target by the key that names it, with the keys it may have. */
const KEYS: Readonly<Record<string, readonly string[]>> = {
	webhook: ["webhook", "secret", "format", "events"],
	command: ["command", "events"],
	ntfy: ["ntfy", "events"],
};

/** The `notify` targets of a config file, checked: a bad one fails naming the file, the target and what is wrong. */
export function readNotifyTargets(file: string, value: unknown): NotifyTarget[] | undefined {
	if (value === undefined) return undefined;
	const fail = (where: string, problem: string): never => {
		throw new CrewError(ErrorCode.InvalidInput, `${file}: ${where}: ${problem}`);
	};
	if (!Array.isArray(value)) return fail("notify", `expected an array of targets, not ${JSON.stringify(value)}`);
	return value.map((target: unknown, i) => readTarget(target, `notify[${i}]`, fail));
}

function readTarget(value: unknown, where: string, fail: (where: string, problem: string) => never): NotifyTarget {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return fail(where, SHAPES);
	const fields = value as Record<string, unknown>;
	const kinds = Object.keys(KEYS).filter((key) => key in fields);
	const [kind] = kinds;
	if (kind === undefined || kinds.length > 1) return fail(where, SHAPES);
	const unknown = Object.keys(fields).find((key) => !KEYS[kind]?.includes(key));
	if (unknown !== undefined) return fail(where, `unknown key "${unknown}" of a ${kind} target: ${SHAPES}`);
	const events = readEvents(fields.events, `${where}.events`, fail);
	const also = events ? { events } : {};
	if (kind === "command") {
		const command = typeof fields.command === "string" ? fields.command.trim() : "";
		if (command === "") return fail(`${where}.command`, "expected a command line, not empty");
		return { command, ...also };
	}
	const url = readHttpUrl(fields[kind], `${where}.${kind}`, fail);
	if (kind === "ntfy") return { ntfy: url, ...also };
	const { secret, format } = fields;
	if (secret !== undefined && (typeof secret !== "string" || secret === "")) {
		return fail(`${where}.secret`, "expected a string, not empty");
	}
	if (format !== undefined && format !== "json" && format !== "slack") {
		return fail(`${where}.format`, `${JSON.stringify(format)} is not json or slack`);
	}
	return {
		webhook: url,
		...(secret !== undefined ? { secret } : {}),
		...(format !== undefined ? { format } : {}),
		...also,
	};
}

function readHttpUrl(value: unknown, where: string, fail: (where: string, problem: string) => never): string {
	const url = typeof value === "string" && URL.canParse(value) ? new URL(value) : undefined;
	if (url?.protocol !== "http:" && url?.protocol !== "https:") {
		return fail(where, `${JSON.stringify(value)} is not an http(s) URL`);
	}
	return value as string;
}

function readEvents(
	value: unknown,
	where: string,
	fail: (where: string, problem: string) => never,
): NotifyEvent[] | undefined {
	if (value === undefined) return undefined;
	if (!Array.isArray(value) || value.length === 0) return fail(where, "expected a list of one event or more");
	const unknown = value.find((event) => !(NOTIFY_EVENTS as readonly unknown[]).includes(event));
	if (unknown !== undefined) {
		return fail(where, `unknown event ${JSON.stringify(unknown)}: expected one of ${NOTIFY_EVENTS.join(", ")}`);
	}
	return value as NotifyEvent[];
}

/** Which events target `t` wants: those it names, else all. */
export function wants(t: NotifyTarget, event: NotifyEvent): boolean {
	return t.events === undefined || t.events.includes(event);
}

/** A target's name in records and messages: its URL or command. */
export function targetName(t: NotifyTarget): string {
	return "webhook" in t ? t.webhook : "ntfy" in t ? t.ntfy : t.command;
}
