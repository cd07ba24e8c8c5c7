// Line-by-line redaction of a byte stream, private keys included, for logs written as output comes.

import { StringDecoder } from "node:string_decoder";
import { marker, redact } from "../../core/redact.js";

const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;
const PEM_END = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;

/**
 * Redacts a byte stream line by line, for logs written as they come. A private key spans lines:
 * from its BEGIN line to its END line, everything is replaced by one marker.
 */
export class RedactingLines {
	readonly #decoder = new StringDecoder("utf8");
	#partial = "";
	#inKey = false;

	/** The redacted text of the whole lines completed by `chunk`. */
	push(chunk: Buffer): string {
		const text = this.#partial + this.#decoder.write(chunk);
		const end = text.lastIndexOf("\n");
		if (end < 0) {
			this.#partial = text;
			return "";
		}
		this.#partial = text.slice(end + 1);
		return this.#lines(text.slice(0, end + 1));
	}

	/** The redacted rest, after the stream's last byte. */
	end(): string {
		const rest = this.#partial + this.#decoder.end();
		this.#partial = "";
		return rest === "" ? "" : this.#lines(rest);
	}

	#lines(text: string): string {
		let out = "";
		for (const line of text.split(/(?<=\n)/)) {
			if (this.#inKey) {
				if (PEM_END.test(line)) this.#inKey = false;
				continue;
			}
			if (PEM_BEGIN.test(line) && !PEM_END.test(line)) {
				this.#inKey = true;
				out += `${marker("private-key")}\n`;
				continue;
			}
			out += redact(line);
		}
		return out;
	}
}
