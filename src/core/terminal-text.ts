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
