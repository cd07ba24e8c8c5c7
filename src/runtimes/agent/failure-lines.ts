// The lines of an agent CLI's stderr that say why it failed, picked out for error messages.

/**
 * The lines of each agent CLI's stderr that say why it failed, by CLI name. The rest of its
 * stderr is help text, warnings and logs: pi prints links to its docs after the reason, Codex
 * prints warnings and timestamped log lines around it.
 */
export const FAILURE_LINES: Readonly<Record<string, readonly RegExp[]>> = {
	pi: [/^No API key found\b/, /^No models available\b/, /^Error: /],
	claude: [/^Error: /, /^error: /, / cannot be used with /, /^Invalid API key\b/],
	codex: [/^Error\b/, /^error: /],
};

/** Longest line put into an error message, in characters. */
const MAX_LINE = 500;

function lines(text: string): string[] {
	return text
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line !== "");
}

/**
 * Why agent CLI `cli` failed, from the start and the end of its stderr: the first line its
 * recognisers know, else the last line, else undefined when stderr was empty.
 */
export function failureLine(cli: string, stderr: { readonly head: string; readonly tail: string }): string | undefined {
	const known = FAILURE_LINES[cli] ?? [];
	const found = [...lines(stderr.head), ...lines(stderr.tail)].find((line) => known.some((re) => re.test(line)));
	const line = found ?? lines(stderr.tail).pop();
	return line?.slice(0, MAX_LINE);
}

/**
 * The last `count` lines of `text` that are not blank, joined by " | " into one line and cut to
 * its last 500 characters; undefined when there are none.
 */
export function tailLines(text: string, count = 3): string | undefined {
	const tail = lines(text).slice(-count).join(" | ");
	return tail === "" ? undefined : tail.slice(-MAX_LINE);
}
