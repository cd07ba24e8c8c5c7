// A run's events as a server-sent event stream, from the server's run feed.

import type { Follower, RunFeed } from "./run-feed.js";

/** Quiet time after which a comment keeps proxies from closing the stream, in ms. */
const KEEPALIVE_MS = 15_000;
const KEEPALIVE = Buffer.from(": keepalive\n\n");

/**
 * A run's events as server-sent events, from the server's `RunFeed`, so runs of any process
 * stream alike. Each event is `event: event`, `data: <event JSON>`, `id: <seq>` (a reconnecting
 * client's Last-Event-ID resumes after it); a `run` event carries the run each time its status
 * changes, the first one at once. The feed's bytes go to the response as they are: one buffer
 * serves every stream that is level with the run.
 */
export function runStream(feed: RunFeed, runId: string, since: number): Response {
	let follower: Follower | undefined;
	let cancelled = false;
	const body = new ReadableStream<Uint8Array>({
		start() {
			follower = feed.follow(runId, since);
		},
		async pull(controller) {
			const f = follower as Follower;
			try {
				const chunks = await f.next(KEEPALIVE_MS);
				if (cancelled) return;
				if (chunks.length === 0) controller.enqueue(KEEPALIVE);
				for (const chunk of chunks) controller.enqueue(chunk);
			} catch (error) {
				const message = error instanceof Error ? error.message : String(error);
				controller.enqueue(Buffer.from(`event: error\ndata: ${JSON.stringify({ error: message })}\n\n`));
				controller.close();
				f.close();
			}
		},
		cancel() {
			cancelled = true;
			follower?.close();
		},
	});
	return new Response(body, {
		headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
	});
}
