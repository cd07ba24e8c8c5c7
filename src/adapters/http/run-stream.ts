import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { isTerminalRun } from "../../core/status.js";
import { eventJson, type RunReader, runSummary } from "../../engine/run-reader.js";

/** Events sent per store read; a longer backlog is sent in turns without waiting. */
const BATCH = 500;
/** Quiet time after which a comment keeps proxies from closing the stream, in ms. */
const KEEPALIVE_MS = 15_000;

/**
 * A run's events as server-sent events, read from the store every `pollMs`, so runs of any process
 * stream alike. Each event is `event: event`, `id: <seq>`, `data: <event JSON>` (a reconnecting
 * client's Last-Event-ID resumes after it); a `run` event carries the run each time its status
 * changes, the first one at once.
 */
export function runStream(c: Context, reader: RunReader, runId: string, since: number, pollMs: number): Response {
	return streamSSE(
		c,
		async (stream) => {
			let after = since;
			let status = "";
			let quiet = 0;
			while (!stream.aborted) {
				const events = reader.events(runId, after, BATCH);
				for (const event of events) {
					await stream.writeSSE({ id: String(event.seq), event: "event", data: JSON.stringify(eventJson(event)) });
					after = event.seq;
				}
				const run = reader.run(runId);
				if (run.status !== status) {
					status = run.status;
					await stream.writeSSE({
						event: "run",
						data: JSON.stringify({ ...runSummary(run), ended: isTerminalRun(run.status) }),
					});
				}
				if (events.length === BATCH) continue;
				quiet = events.length > 0 ? 0 : quiet + pollMs;
				if (quiet >= KEEPALIVE_MS) {
					await stream.write(": keepalive\n\n");
					quiet = 0;
				}
				await stream.sleep(pollMs);
			}
		},
		async (error, stream) => {
			await stream.writeSSE({ event: "error", data: JSON.stringify({ error: error.message }) });
		},
	);
}
