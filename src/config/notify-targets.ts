// The `notify` targets of a config file (webhooks, commands, ntfy) and the run events each wants.

import { z } from "zod";
import { CrewError, ErrorCode } from "../core/errors.js";

/** What a target may be told of: a run's end, its failure, its wait for a person, 80% of its budget. */
export const NOTIFY_EVENTS = ["ended", "failed", "waiting", "budget"] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

const events = z
	.array(
		z.enum(NOTIFY_EVENTS, {
			error: (i) => `unknown event ${JSON.stringify(i.input)}: expected one of ${NOTIFY_EVENTS.join(", ")}`,
		}),
	)
	.min(1)
	.optional();
const httpUrl = z.url({ protocol: /^https?$/, error: (i) => `${JSON.stringify(i.input)} is not an http(s) URL` });

const Webhook = z.strictObject({
	webhook: httpUrl,
	/** Signs each body: `X-Crew-Signature: sha256=<HMAC-SHA256 of the body, hex>`. */
	secret: z.string().min(1).optional(),
	/** `slack`: a Slack-compatible `{text}` body instead of crew's JSON. */
	format: z.enum(["json", "slack"]).optional(),
	events,
});
const Command = z.strictObject({ command: z.string().trim().min(1), events });
const Ntfy = z.strictObject({ ntfy: httpUrl, events });

export type WebhookTarget = z.infer<typeof Webhook>;
export type CommandTarget = z.infer<typeof Command>;
export type NtfyTarget = z.infer<typeof Ntfy>;
export type NotifyTarget = WebhookTarget | CommandTarget | NtfyTarget;

const Targets = z.array(z.union([Webhook, Command, Ntfy]));

/** The `notify` targets of a config file, checked: a bad one fails naming the file, the target and what is wrong. */
export function readNotifyTargets(file: string, value: unknown): NotifyTarget[] | undefined {
	if (value === undefined) return undefined;
	const parsed = Targets.safeParse(value);
	if (parsed.success) return parsed.data;
	const issue = parsed.error.issues[0];
	const where = issue?.path.length ? `notify[${issue.path.map(String).join("].")}]` : "notify";
	throw new CrewError(
		ErrorCode.InvalidInput,
		`${file}: ${where}: ${issue?.code === "invalid_union" ? "expected {webhook, secret?, format?, events?}, {command, events?} or {ntfy, events?}" : issue?.message}`,
	);
}

/** Which events target `t` wants: those it names, else all. */
export function wants(t: NotifyTarget, event: NotifyEvent): boolean {
	return t.events === undefined || t.events.includes(event);
}

/** A target's name in records and messages: its URL or command. */
export function targetName(t: NotifyTarget): string {
	return "webhook" in t ? t.webhook : "ntfy" in t ? t.ntfy : t.command;
}
