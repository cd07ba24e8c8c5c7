import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../helpers.js";

/** The README and every page of docs/. */
function pages(): string[] {
	const docs = join(ROOT, "docs");
	const inDocs = existsSync(docs)
		? readdirSync(docs, { recursive: true, encoding: "utf8" })
				.filter((f) => f.endsWith(".md"))
				.map((f) => join(docs, f))
		: [];
	return [join(ROOT, "README.md"), ...inDocs];
}

/** A page's text without its fenced code blocks (a fence opens and closes on a line of its own). */
function prose(file: string): string {
	let fenced = false;
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => {
			if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
			return !fenced && !/^\s*(```|~~~)/.test(line);
		})
		.join("\n");
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(file: string): Set<string> {
	const seen = new Map<string, number>();
	const found = new Set<string>();
	for (const [, heading] of prose(file).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
		const base = (heading as string)
			.toLowerCase()
			.replace(/[^\p{L}\p{N} _-]/gu, "")
			.replace(/ /g, "-");
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		found.add(n === 0 ? base : `${base}-${n}`);
	}
	return found;
}

test("every relative link and anchor in the README and docs/ leads somewhere", () => {
	const broken: string[] = [];
	for (const page of pages()) {
		for (const [, target] of prose(page).matchAll(/\]\(([^)\s]+)\)/g)) {
			const link = target as string;
			if (/^[a-z]+:/i.test(link)) continue;
			const [path, anchor] = link.split("#") as [string, string | undefined];
			const file = path === "" ? page : join(dirname(page), path);
			const where = `${relative(ROOT, page)}: ${link}`;
			if (!existsSync(file)) broken.push(`${where} (no such file)`);
			else if (anchor !== undefined && file.endsWith(".md") && !anchors(file).has(anchor))
				broken.push(`${where} (no such heading)`);
		}
	}
	expect(broken).toEqual([]);
});
