// A linear-time scan that replaces JSON Web Tokens in text, for redaction.

/** The prefix of a JWT's header and payload segments: base64url of `{"`. */
const PREFIX = "eyJ";
/** The fewest characters of each segment, after its prefix. */
const MIN_SEGMENT = 8;

/**
 * `text` with each JWT (`eyJ….eyJ….…`: three base64url segments joined by dots, each of at least
 * eight characters after its prefix, the first not inside a longer run) replaced by `marker`.
 * One pass: a run of base64url characters is read at most twice, whatever the text.
 */
export function replaceJwts(text: string, marker: string): string {
	const parts: string[] = [];
	let from = 0;
	let at = text.indexOf(PREFIX);
	while (at >= 0) {
		const end = at > 0 && isSegmentChar(text.charCodeAt(at - 1)) ? -1 : jwtEnd(text, at);
		if (end < 0) {
			// No JWT starts anywhere else in this run of base64url characters either: each is inside it.
			at = text.indexOf(PREFIX, Math.max(segmentEnd(text, at), at + PREFIX.length));
			continue;
		}
		parts.push(text.slice(from, at), marker);
		from = end;
		at = text.indexOf(PREFIX, end);
	}
	if (from === 0) return text;
	parts.push(text.slice(from));
	return parts.join("");
}

/** Where the JWT that starts at `at` ends, or -1 when none does. */
function jwtEnd(text: string, at: number): number {
	const header = segmentEnd(text, at + PREFIX.length);
	if (header - at - PREFIX.length < MIN_SEGMENT || text[header] !== "." || !text.startsWith(PREFIX, header + 1)) {
		return -1;
	}
	const payloadStart = header + 1 + PREFIX.length;
	const payload = segmentEnd(text, payloadStart);
	if (payload - payloadStart < MIN_SEGMENT || text[payload] !== ".") return -1;
	const signature = segmentEnd(text, payload + 1);
	return signature - payload - 1 < MIN_SEGMENT ? -1 : signature;
}

/** Where the run of base64url characters from `from` ends. */
function segmentEnd(text: string, from: number): number {
	// A sticky pattern of its own per call (no shared `lastIndex`); irregexp scans far faster than a loop here.
	const run = /[A-Za-z0-9_-]*/y;
	run.lastIndex = from;
	run.test(text);
	return run.lastIndex;
}

function isSegmentChar(code: number): boolean {
	return (
		(code >= 48 && code <= 57) ||
		(code >= 65 && code <= 90) ||
		(code >= 97 && code <= 122) ||
		code === 45 ||
		code === 95
	);
}
