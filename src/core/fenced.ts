// Text fenced as data inside a tag, so that what it says cannot pass for the prompt's own words.

/** `text` inside `<tag …>`, any closing tag of its own made inert so it cannot end the fence early. */
export function fenced(
	tag: string,
	text: string,
	attributes: Readonly<Record<string, string | number | boolean>> = {},
): string {
	const said = Object.entries(attributes)
		.map(([name, value]) => ` ${name}="${String(value).replaceAll('"', "&quot;")}"`)
		.join("");
	return [`<${tag}${said}>`, text.trimEnd().replaceAll(`</${tag}`, `<\\/${tag}`), `</${tag}>`].join("\n");
}
