// Byte buffers of bounded size: one keeps the first bytes written, the other the last.

/** Keeps the first `limit` bytes written and counts the rest. */
export class BoundedBuffer {
	readonly #chunks: Buffer[] = [];
	readonly #limit: number;
	#kept = 0;
	#total = 0;

	constructor(limit: number) {
		this.#limit = limit;
	}

	get total(): number {
		return this.#total;
	}

	get truncated(): boolean {
		return this.#total > this.#kept;
	}

	push(chunk: Buffer): void {
		this.#total += chunk.length;
		const room = this.#limit - this.#kept;
		if (room <= 0) return;
		const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
		this.#chunks.push(part);
		this.#kept += part.length;
	}

	/** The kept bytes as UTF-8; invalid sequences become U+FFFD. */
	text(): string {
		return Buffer.concat(this.#chunks).toString("utf8");
	}
}

/** Keeps the last `limit` bytes written. */
export class TailBuffer {
	#buffer = Buffer.alloc(0);
	readonly #limit: number;

	constructor(limit: number) {
		this.#limit = limit;
	}

	push(chunk: Buffer): void {
		const joined = Buffer.concat([this.#buffer, chunk]);
		this.#buffer = joined.length > this.#limit ? joined.subarray(joined.length - this.#limit) : joined;
	}

	text(): string {
		return this.#buffer.toString("utf8");
	}
}
