// Frontmatter of markdown resource files, read key by key as YAML, with diagnostics on their lines.

import { LineCounter, parseDocument as parseYaml } from "yaml";
import { CrewError, ErrorCode } from "../core/errors.js";

export interface Diagnostic {
	readonly level: "error" | "warning";
	readonly file: string;
	/** The file's line the problem is on, 1-based, when it is on one. */
	readonly line?: number;
	readonly message: string;
}

/** A field's value: one text (trimmed) or a list of texts. */
export type FieldValue = string | readonly string[];

export interface Field {
	readonly value: FieldValue;
	/** The file's line the key is on, 1-based. */
	readonly line: number;
}

export interface Document {
	readonly fields: Readonly<Record<string, Field>>;
	readonly body: string;
	/** The file's line the body starts on, 1-based. */
	readonly bodyLine: number;
}

/** A key line starts at column 0; its value may go on over indented lines or `- ` items. */
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(.*)$/;
/** A value that opens a YAML flow list or mapping, or a quoted string, which YAML found unclosed. */
const UNCLOSED = /^["'[{]/;
/** `|`, `>-`, `|2+`…: the value is the indented lines that follow, blank ones included. */
const BLOCK_SCALAR = /^\s*[|>][-+0-9]*\s*(#.*)?$/;

/**
 * Reads a markdown file's frontmatter (between `---` lines) as YAML, key by key, so one bad value
 * is reported on its line and the others still read. A value on its key's line that YAML refuses
 * (pi-crew writes `tools: *`, `description: Fix: the bug`) is taken as written, as pi-crew's
 * flat parser does. A frontmatter that is opened and never closed is an error, not a body.
 */
export function parseDocument(text: string, file: string, diagnostics: Diagnostic[]): Document {
	const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
	const lines = normalized.split("\n");
	if (lines[0]?.trim() !== "---") return { fields: {}, body: normalized, bodyLine: 1 };
	const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
	if (end < 0) {
		throw new CrewError(
			ErrorCode.InvalidResource,
			"its frontmatter, opened by '---' on line 1, is never closed by another '---' line",
		);
	}
	return {
		fields: readFields(lines.slice(1, end), 2, file, diagnostics),
		body: lines.slice(end + 1).join("\n"),
		bodyLine: end + 2,
	};
}

interface Entry {
	readonly key: string;
	readonly line: number;
	readonly lines: string[];
}

/**
 * Reads `key: value` entries from `lines`, the first of which is the file's line `firstLine`.
 * A key given twice is an error (the last counts); a line that belongs to no key is a warning.
 */
export function readFields(
	lines: readonly string[],
	firstLine: number,
	file: string,
	diagnostics: Diagnostic[],
): Record<string, Field> {
	const entries: Entry[] = [];
	let current: Entry | undefined;
	// pi-crew reads each line trimmed, so a frontmatter indented as a whole is read as if it were not.
	const indent = (l: string) => /^[ \t]*/.exec(l)?.[0].length ?? 0;
	const common = Math.min(...lines.filter((l) => l.trim() !== "").map(indent));
	const dedented = Number.isFinite(common) ? lines.map((l) => l.slice(Math.min(common, indent(l)))) : lines;
	for (const [i, line] of dedented.entries()) {
		const key = KEY_LINE.exec(line)?.[1];
		if (key !== undefined) {
			current = { key, line: firstLine + i, lines: [line] };
			entries.push(current);
		} else if (current && (line.trim() === "" || /^[\s#-]/.test(line))) {
			current.lines.push(line);
		} else if (line.trim() !== "" && !line.startsWith("#")) {
			diagnostics.push({
				level: "warning",
				file,
				line: firstLine + i,
				message: `'${line.trim()}' is not a 'key: value' line; it is ignored`,
			});
		}
	}
	const fields: Record<string, Field> = {};
	for (const entry of entries) {
		const before = fields[entry.key];
		if (before) {
			diagnostics.push({
				level: "error",
				file,
				line: entry.line,
				message: `'${entry.key}' is given twice (lines ${before.line} and ${entry.line})`,
			});
		}
		const value = entryValue(entry, file, diagnostics);
		if (value !== undefined) fields[entry.key] = { value, line: entry.line };
	}
	return fields;
}

function entryValue(entry: Entry, file: string, diagnostics: Diagnostic[]): FieldValue | undefined {
	const meaningful = entry.lines.filter((l) => l.trim() !== "" && !/^\s*#/.test(l));
	const flat = unquote((KEY_LINE.exec(entry.lines[0] ?? "")?.[2] ?? "").trim());
	const counter = new LineCounter();
	const doc = parseYaml(entry.lines.join("\n"), {
		schema: "failsafe",
		lineCounter: counter,
		prettyErrors: true,
		uniqueKeys: false,
	});
	const single = meaningful.length <= 1;
	if (doc.errors.length > 0) {
		// A flat value is pi-crew's, but one that opens a list, a mapping or a quote and never closes it is a mistake.
		if (single && !UNCLOSED.test(flat)) return flat;
		const error = doc.errors[0];
		const last = entry.lines.findLastIndex((l) => l.trim() !== "");
		const line = entry.line + Math.min((error?.linePos?.[0].line ?? 1) - 1, Math.max(last, 0));
		const why = (error?.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
		diagnostics.push({ level: "error", file, line, message: `'${entry.key}' does not read as YAML: ${why}` });
		return undefined;
	}
	const read: unknown = doc.toJS({ maxAliasCount: 0 });
	const value = read !== null && typeof read === "object" ? (read as Record<string, unknown>)[entry.key] : undefined;
	if (value === null || value === undefined) return single ? flat : "";
	if (typeof value === "string") return value.trim();
	if (Array.isArray(value) && value.every((item) => typeof item === "string" || item === null)) {
		return value.map((item) => (item ?? "").trim()).filter((item) => item !== "");
	}
	if (single) return flat;
	diagnostics.push({
		level: "error",
		file,
		line: entry.line,
		message: `'${entry.key}' is a ${Array.isArray(value) ? "list of lists or mappings" : "mapping"}; expected a value or a list of values`,
	});
	return undefined;
}

/** Whether `line` opens a `key: value` entry, and whether its value is a block scalar. */
export function keyLine(line: string): { key: string; block: boolean } | undefined {
	const match = KEY_LINE.exec(line);
	if (!match?.[1]) return undefined;
	return { key: match[1], block: BLOCK_SCALAR.test(match[2] ?? "") };
}

function unquote(value: string): string {
	const v = value.trim();
	if (v.length >= 2 && ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'")))) {
		return v.slice(1, -1);
	}
	return v;
}

/**
 * A list: a YAML list as it is, or pi-crew's comma list (`read, grep`, `[a, b]`); `false`, `none`
 * and empty are no items.
 */
export function list(value: FieldValue | undefined): string[] {
	if (value === undefined) return [];
	if (typeof value !== "string") return [...value];
	const v = value.trim().replace(/^\[(.*)\]$/, "$1");
	if (v === "" || v === "false" || v === "none") return [];
	return v
		.split(",")
		.map((item) => unquote(item.trim()))
		.filter((item) => item !== "");
}

/** How a diagnostic is shown: `level: file:line: message`, without the place when it has none. */
export function diagnosticText(d: Diagnostic): string {
	const place = d.file === "" ? "" : `${d.file}${d.line === undefined ? "" : `:${d.line}`}: `;
	return `${d.level}: ${place}${d.message}`;
}

/** Diagnostics in the order of their lines; those of no line first, in the order found. */
export function byLine(diagnostics: Diagnostic[]): Diagnostic[] {
	return diagnostics
		.map((d, i) => ({ d, i }))
		.sort((a, b) => (a.d.line ?? 0) - (b.d.line ?? 0) || a.i - b.i)
		.map(({ d }) => d);
}
