import { CrewError, ErrorCode } from "../core/errors.js";

export interface Diagnostic {
	readonly level: "error" | "warning";
	readonly file: string;
	readonly message: string;
}

export interface Document {
	/** Frontmatter fields as written; values are trimmed strings. */
	readonly fields: Readonly<Record<string, string>>;
	readonly body: string;
}

const FIELD = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$/;

/**
 * Reads pi-crew's frontmatter: flat `key: value` lines between `---` lines, not YAML. Lists stay
 * comma-separated strings here; `list()` splits them. A frontmatter that is opened and never
 * closed is an error, not a body.
 */
export function parseDocument(text: string): Document {
	const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
	const lines = normalized.split("\n");
	if (lines[0]?.trim() !== "---") return { fields: {}, body: normalized };
	const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
	if (end < 0) {
		throw new CrewError(
			ErrorCode.InvalidResource,
			"its frontmatter, opened by '---' on line 1, is never closed by another '---' line",
		);
	}
	return { fields: parseFields(lines.slice(1, end)), body: lines.slice(end + 1).join("\n") };
}

export function parseFields(lines: readonly string[]): Record<string, string> {
	const fields: Record<string, string> = {};
	for (const line of lines) {
		const trimmed = line.trim();
		if (trimmed === "" || trimmed.startsWith("#")) continue;
		const match = FIELD.exec(trimmed);
		if (match?.[1]) fields[match[1]] = unquote(match[2] ?? "");
	}
	return fields;
}

export function isFieldLine(line: string): boolean {
	return FIELD.test(line.trim());
}

function unquote(value: string): string {
	const v = value.trim();
	if (v.length >= 2 && ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'")))) {
		return v.slice(1, -1);
	}
	return v;
}

/** A comma list: `read, grep` → ["read", "grep"]; `false`, `none` and empty → []. */
export function list(value: string | undefined): string[] {
	if (value === undefined) return [];
	const v = value.trim().replace(/^\[(.*)\]$/, "$1");
	if (v === "" || v === "false" || v === "none") return [];
	return v
		.split(",")
		.map((item) => unquote(item.trim()))
		.filter((item) => item !== "");
}
