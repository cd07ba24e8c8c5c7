// A byte stream split into JSON-object lines, with oversize and non-JSON lines handed on apart.

/**
 * Splits a byte stream into lines and parses each as JSON. A line longer than `maxLine` bytes is
 * dropped, and one that is not a JSON object is handed on as text: neither stops the stream.
 */
export class JsonLines {
	readonly #maxLine: number;
	readonly #onLine: (line: JsonLine) => void;
	#pending: Buffer[] = [];
	#pendingSize = 0;
	#oversize = false;

	constructor(maxLine: number, onLine: (line: JsonLine) => void) {
		this.#maxLine = maxLine;
		this.#onLine = onLine;
	}

	push(chunk: Buffer): void {
		let start = 0;
		for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
			this.#take(chunk.subarray(start, nl));
			this.#emit();
			start = nl + 1;
		}
		this.#take(chunk.subarray(start));
	}

	/** Hands on a last line that had no newline. */
	end(): void {
		if (this.#pendingSize > 0 || this.#oversize) this.#emit();
	}

	#take(part: Buffer): void {
		if (this.#oversize || part.length === 0) return;
		if (this.#pendingSize + part.length > this.#maxLine) {
			this.#oversize = true;
			this.#pending = [];
			this.#pendingSize = 0;
			return;
		}
		this.#pending.push(part);
		this.#pendingSize += part.length;
	}

	#emit(): void {
		if (this.#oversize) {
			this.#onLine({ kind: "oversize", bytes: this.#maxLine });
		} else if (this.#pendingSize > 0) {
			const text = Buffer.concat(this.#pending).toString("utf8");
			let value: unknown;
			try {
				value = JSON.parse(text);
			} catch {
				// Not JSON: handed on as text below.
				value = undefined;
			}
			if (value !== null && typeof value === "object" && !Array.isArray(value)) {
				this.#onLine({ kind: "json", value: value as Record<string, unknown>, text });
			} else if (text.trim() !== "") this.#onLine({ kind: "text", text });
		}
		this.#pending = [];
		this.#pendingSize = 0;
		this.#oversize = false;
	}
}

export type JsonLine =
	| { readonly kind: "json"; readonly value: Record<string, unknown>; readonly text: string }
	| { readonly kind: "text"; readonly text: string }
	| { readonly kind: "oversize"; readonly bytes: number };
