// Text made inert for a terminal: control characters shown as symbols rather than acted on.

/** Every C0 control character but tab and newline, DEL, and every C1 control character. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it matches
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` as a terminal shows it without acting on it: agents and repositories write what crew's
 * views print, and an escape sequence there could set the clipboard (OSC 52), retitle the window,
 * or move the cursor to hide lines. A C0 control shows as its picture (`␛` for ESC), DEL as `␡`,
 * a C1 control as `�`; tab and newline stay, as does the carriage return of a CRLF line ending.
 */
export function inert(text: string): string {
	return text.replace(/\r\n/g, "\n").replace(CONTROL, (c) => {
		const code = c.charCodeAt(0);
		if (code < 0x20) return String.fromCharCode(0x2400 + code);
		return code === 0x7f ? "\u2421" : "\ufffd";
	});
}

/** A log's path as crew's errors name it, `(log: PATH)`, with the space before it. */
const LOG_PATH = / ?\(log: [^\s()]+\)/;

/** At most `max` UTF-16 units of `line`, ending between words when a word ends in its latter half. */
function cut(line: string, max: number): string {
	if (line.length <= max) return line;
	if (/\s/.test(line.charAt(max))) return line.slice(0, max).trimEnd();
	let head = line.slice(0, max);
	const space = head.search(/\s\S*$/);
	if (space > max / 2) head = head.slice(0, space);
	// A character outside the BMP is two units: never leave half of one.
	else if (/[\ud800-\udbff]$/.test(head)) head = head.slice(0, -1);
	return head.trimEnd();
}

/** `text` without the log's path it names, `(log: PATH)`, and that path's mention apart. */
export function logPathApart(text: string): { text: string; log?: string } {
	const found = LOG_PATH.exec(text)?.[0].trim();
	return found ? { text: text.replace(LOG_PATH, ""), log: found } : { text };
}

/**
 * `text` as a view shows it, readable whatever its size: whole when it is one line of at most
 * `max` characters (UTF-16 units) besides a log's path; else at most `max` characters of its
 * first line, cut between words where it can be, then `…` and, given `where` the whole is read
 * (such as `crew status <run> --json for all`), its whole length and that place. A log's path in
 * the text, `(log: PATH)`, is never cut: when the text is, the path follows the note whole, as the
 * place where more of the story is.
 */
export function excerpt(text: string, max: number, where?: string): string {
	const { text: rest, log } = logPathApart(text);
	if (rest.length <= max && !text.includes("\n")) return text;
	const first = rest.split("\n", 1)[0] ?? "";
	const note = where === undefined ? "" : ` (${text.length.toLocaleString("en-US")} characters; ${where})`;
	return `${cut(first, max)}…${note}${log ? ` ${log}` : ""}`;
}
