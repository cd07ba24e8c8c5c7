// A command's stdout as bounded `output` events of whole lines, so a running task can be followed.

import { StringDecoder } from "node:string_decoder";
import type { WorkerEvent } from "../worker-runtime.js";
import { CUT } from "./tool-output.js";

/** Characters kept of one line of output. */
const MAX_LINE = 1000;

/**
 * Turns a command's stdout into `output` events of whole lines, one event per chunk, so the task
 * can be followed while it runs. Bounded: after `maxEvents` events it says the rest is in the
 * result and goes quiet, so a command that prints without end cannot flood the event log.
 */
export class OutputEvents {
	readonly #decoder = new StringDecoder("utf8");
	readonly #emit: (event: WorkerEvent) => void;
	readonly #maxEvents: number;
	#partial = "";
	#sent = 0;

	constructor(emit: (event: WorkerEvent) => void, maxEvents = 1000) {
		this.#emit = emit;
		this.#maxEvents = maxEvents;
	}

	push(chunk: Buffer): void {
		if (this.#sent > this.#maxEvents) return;
		const text = this.#partial + this.#decoder.write(chunk);
		const end = text.lastIndexOf("\n");
		if (end < 0) {
			this.#partial = text.length > MAX_LINE ? text.slice(0, MAX_LINE) : text;
			return;
		}
		this.#partial = text.slice(end + 1, end + 1 + MAX_LINE);
		this.#send(text.slice(0, end));
	}

	/** Sends a last line that had no newline. */
	end(): void {
		const rest = this.#partial + this.#decoder.end();
		this.#partial = "";
		if (rest.trim() !== "") this.#send(rest);
	}

	#send(lines: string): void {
		if (this.#sent > this.#maxEvents) return;
		this.#sent++;
		if (this.#sent > this.#maxEvents) {
			this.#emit({ type: "output", text: "[crew: more output in the task's result]" });
			return;
		}
		const text = lines
			.split("\n")
			.map((line) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}${CUT}` : line))
			.join("\n");
		this.#emit({ type: "output", text });
	}
}
