// Live run feeds of the HTTP server: each run's new events read once and shared as SSE frames by its streams.

import type { EventRecord } from "../../core/records.js";
import { isTerminalRun } from "../../core/status.js";
import { eventJson, runSummary } from "../../engine/views/json.js";
import type { RunReader } from "../../engine/views/reader.js";

/** Events read from the store at once; a longer backlog is read in turns. */
const BATCH = 500;
/**
 * Frames a run's tail keeps for streams a little behind (a browser reconnecting); a stream further
 * behind catches up from the store on its own, then joins the tail.
 */
const KEPT = 2000;

interface Frame {
	readonly seq: number;
	readonly text: string;
}

function eventFrame(event: EventRecord): Frame {
	return { seq: event.seq, text: `event: event\ndata: ${JSON.stringify(eventJson(event))}\nid: ${event.seq}\n\n` };
}

/**
 * One run's latest events as ready-made SSE frames, shared by every stream of that run; what one
 * store read brought is also kept as bytes, so the streams that were level with the run get the
 * very same buffer.
 */
class RunTail {
	readonly runId: string;
	frames: Frame[] = [];
	/** The seq of the latest event read from the store. */
	lastSeq: number;
	/** The frames the latest read brought, as bytes, for streams that had all before them. */
	latest: { readonly after: number; readonly bytes: Uint8Array } | undefined;
	status = "";
	runBytes: Uint8Array = new Uint8Array();
	error: Error | undefined;
	followers = 0;
	readonly #waiting = new Set<() => void>();

	/** A tail holding up to `KEPT` of the run's latest events, so streams starting a little behind share it. */
	constructor(runId: string, reader: RunReader) {
		this.runId = runId;
		this.lastSeq = Math.max(0, reader.lastEventSeq(runId) - KEPT);
		this.refresh(reader);
	}

	/** Frames after `seq`, or undefined when the tail no longer holds them all. */
	after(seq: number): readonly Frame[] | undefined {
		if (seq >= this.lastSeq) return [];
		const first = this.frames[0];
		if (!first || seq < first.seq - 1) return undefined;
		let lo = 0;
		let hi = this.frames.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if ((this.frames[mid] as Frame).seq <= seq) lo = mid + 1;
			else hi = mid;
		}
		return this.frames.slice(lo);
	}

	/**
	 * Reads what the run gained since the last read; true when anything changed. The run is read
	 * before its events, so a status that says the run ended comes with every event written before.
	 */
	refresh(reader: RunReader): boolean {
		const run = reader.run(this.runId);
		const after = this.lastSeq;
		const added: Frame[] = [];
		for (;;) {
			const events = reader.events(this.runId, this.lastSeq, BATCH);
			added.push(...events.map(eventFrame));
			this.lastSeq = events.at(-1)?.seq ?? this.lastSeq;
			if (events.length < BATCH) break;
		}
		if (added.length > 0) {
			this.frames = this.frames.concat(added).slice(-KEPT);
			this.latest = { after, bytes: Buffer.from(added.map((f) => f.text).join("")) };
		}
		if (run.status === this.status) return added.length > 0;
		this.status = run.status;
		const data = JSON.stringify({ ...runSummary(run), ended: isTerminalRun(run.status) });
		this.runBytes = Buffer.from(`event: run\ndata: ${data}\n\n`);
		return true;
	}

	/** Resolves at the next change, or after `ms` without one. */
	changed(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const done = () => {
				clearTimeout(timer);
				this.#waiting.delete(done);
				resolve();
			};
			const timer = setTimeout(done, ms);
			this.#waiting.add(done);
		});
	}

	wake(): void {
		for (const done of [...this.#waiting]) done();
	}
}

/**
 * Streams the feed reads for every `pollMs`; with more, it reads (and so sends) less often, so the
 * server writes about as often as for this many: fifty tabs cost about what a few cost, and each
 * sees changes a little later (every second, at fifty).
 */
const STREAMS_AT_FULL_RATE = 16;

/** One stream's place in a run's events, as `RunFeed.follow` gives it. */
export interface Follower {
	/**
	 * What the stream has not been sent yet as SSE bytes (events, then the run when its status
	 * changed), waiting up to `ms` for some; none when nothing came in that time or the follower
	 * was closed.
	 */
	next(ms: number): Promise<Uint8Array[]>;
	close(): void;
}

class RunFollower implements Follower {
	readonly #tail: RunTail;
	readonly #reader: RunReader;
	readonly #onClose: () => void;
	#after: number;
	#status = "";
	#closed = false;

	constructor(tail: RunTail, reader: RunReader, since: number, onClose: () => void) {
		this.#tail = tail;
		this.#reader = reader;
		this.#after = since;
		this.#onClose = onClose;
	}

	async next(ms: number): Promise<Uint8Array[]> {
		const until = Date.now() + ms;
		for (;;) {
			const chunks = this.#closed ? [] : this.#take();
			const left = until - Date.now();
			if (chunks.length > 0 || this.#closed || left <= 0) return chunks;
			await this.#tail.changed(left);
		}
	}

	close(): void {
		if (this.#closed) return;
		this.#closed = true;
		this.#tail.wake();
		this.#onClose();
	}

	#take(): Uint8Array[] {
		const tail = this.#tail;
		if (tail.error) throw tail.error;
		const chunks: Uint8Array[] = [];
		if (tail.latest?.after === this.#after) {
			chunks.push(tail.latest.bytes);
			this.#after = tail.lastSeq;
		} else {
			const frames = tail.after(this.#after) ?? this.#reader.events(tail.runId, this.#after, BATCH).map(eventFrame);
			if (frames.length > 0) {
				chunks.push(Buffer.from(frames.map((f) => f.text).join("")));
				this.#after = (frames.at(-1) as Frame).seq;
			}
		}
		// The run is sent at once, then again when its status changes once the stream has caught up.
		if (tail.status !== this.#status && (this.#status === "" || this.#after >= tail.lastSeq)) {
			this.#status = tail.status;
			chunks.push(tail.runBytes);
		}
		return chunks;
	}
}

/**
 * Live run streams of one server: a single timer reads each followed run from the store every
 * `pollMs` and hands the new events, made into SSE frames once, to every stream of that run.
 */
export class RunFeed {
	readonly #reader: () => RunReader;
	readonly #pollMs: number;
	readonly #tails = new Map<string, RunTail>();
	#followers = 0;
	#timer: NodeJS.Timeout | undefined;

	constructor(reader: () => RunReader, pollMs: number) {
		this.#reader = reader;
		this.#pollMs = pollMs;
	}

	/** Follows a run's events after `since`; the first `next` also gives the run as it is. */
	follow(runId: string, since: number): Follower {
		const reader = this.#reader();
		let tail = this.#tails.get(runId);
		if (!tail) {
			tail = new RunTail(runId, reader);
			this.#tails.set(runId, tail);
		}
		const held = tail;
		held.followers++;
		this.#followers++;
		this.#schedule();
		return new RunFollower(held, reader, since, () => {
			this.#followers--;
			if (--held.followers === 0) this.#tails.delete(runId);
			if (this.#tails.size === 0) this.#stop();
		});
	}

	#schedule(): void {
		if (this.#timer || this.#tails.size === 0) return;
		const ms = this.#pollMs * Math.ceil(this.#followers / STREAMS_AT_FULL_RATE);
		this.#timer = setTimeout(() => {
			this.#timer = undefined;
			this.#poll();
			this.#schedule();
		}, ms);
	}

	#poll(): void {
		const reader = this.#reader();
		for (const tail of this.#tails.values()) {
			try {
				if (tail.refresh(reader)) tail.wake();
			} catch (error) {
				tail.error = error instanceof Error ? error : new Error(String(error));
				tail.wake();
			}
		}
	}

	#stop(): void {
		clearTimeout(this.#timer);
		this.#timer = undefined;
	}

	close(): void {
		this.#stop();
		for (const tail of this.#tails.values()) tail.wake();
		this.#tails.clear();
	}
}
