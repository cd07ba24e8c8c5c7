/** Turns a title into a URL slug: "Hello, World" -> "hello-world". */
export function slugify(title) {
	const words = title
		.trim()
		.split(/[^A-Za-z0-9]+/)
		.filter(Boolean);
	return words.join("-");
}
