// Signing of queue jobs with `CREW_QUEUE_KEY`, so workers run only jobs a coordinator holding it made.

import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { CrewError, ErrorCode } from "../../core/errors.js";

/** The variable holding the secret a coordinator signs its jobs with and its workers check them by. */
export const QUEUE_KEY = "CREW_QUEUE_KEY";

/** Shortest key taken: a guessable one would let anyone who can write to Redis sign. */
const MIN_KEY_LENGTH = 16;

/**
 * The queue's key from `env`, checked. Anyone who can write to the queue's Redis can add a job;
 * only a holder of the key can make one a worker runs, so a coordinator and its workers share it.
 */
export function queueKey(env: NodeJS.ProcessEnv, who: string): string {
	const key = env[QUEUE_KEY] ?? "";
	if (key.length < MIN_KEY_LENGTH) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`${who} needs ${QUEUE_KEY}: a secret of at least ${MIN_KEY_LENGTH} characters, the same for the runs' coordinator and their workers (${key === "" ? "it is not set" : `it has ${key.length}`}); make one with: openssl rand -hex 32`,
		);
	}
	return key;
}

/** A job as it goes through the queue: what it carries, as text, and that text's HMAC-SHA256 under the queue's key. */
const Sealed = z.object({ payload: z.string(), signature: z.string().regex(/^[0-9a-f]{64}$/) });
export type SealedJob = z.infer<typeof Sealed>;

function sign(payload: string, key: string): string {
	return createHmac("sha256", key).update(payload).digest("hex");
}

export function sealJob(data: unknown, key: string): SealedJob {
	const payload = JSON.stringify(data);
	return { payload, signature: sign(payload, key) };
}

/** What a sealed job carries, when `key` signed it; else why it is refused. */
export function openJob(raw: unknown, key: string): { readonly data: unknown } | { readonly refused: string } {
	const sealed = Sealed.safeParse(raw);
	if (!sealed.success) return { refused: "it is not signed" };
	const given = Buffer.from(sealed.data.signature, "hex");
	const expected = Buffer.from(sign(sealed.data.payload, key), "hex");
	if (!timingSafeEqual(given, expected)) return { refused: `it is not signed with this worker's ${QUEUE_KEY}` };
	return { data: JSON.parse(sealed.data.payload) as unknown };
}
