// The names each layer's resource files answer to: a file's `name:` first, then its file name.

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { isCrewError } from "../core/errors.js";
import { ID_RULE, isValidId } from "../core/ids.js";
import { type Diagnostic, parseDocument } from "./frontmatter.js";
import type { LayerName, ResourceKind, ResourceLayer } from "./resource-layer.js";
import { readResourceText } from "./resource-text.js";
import { isWorkflowScript, SCRIPT_SUFFIXES } from "./workflow-script-file.js";

export const FOLDERS: Record<ResourceKind, string> = { agent: "agents", team: "teams", workflow: "workflows" };

/** The file name endings of each kind, the one that wins a tie of file names first. */
const SUFFIXES: Record<ResourceKind, readonly string[]> = {
	agent: [".md"],
	team: [".team.md", ".md"],
	workflow: [".workflow.md", ...SCRIPT_SUFFIXES, ".md"],
};

/** One resource file of a layer and the names it answers to. */
export interface NamedFile {
	readonly layer: LayerName;
	/** The layer's folder of the kind, which holds the file. */
	readonly folder: string;
	readonly file: string;
	/** What it is known by: its `name:` when that is a valid name, else its file name less the suffix. */
	readonly name: string;
	/** Its file name less the kind's suffix. */
	readonly stem: string;
	/** Its `name:` as written, when it has one. */
	readonly declared?: string;
}

/** The file of one layer folder that defines a name, and the other files of that folder claiming it too. */
export interface Claim {
	readonly layer: LayerName;
	readonly folder: string;
	readonly file: string;
	readonly twins: readonly string[];
}

/** Every file of a kind in every layer, in the layers' order; in a folder, by suffix, then file name. */
export function namedFiles(kind: ResourceKind, layers: readonly ResourceLayer[]): NamedFile[] {
	const found: NamedFile[] = [];
	for (const { layer, dir } of layers) {
		const folder = join(dir, FOLDERS[kind]);
		const entries = filesIn(folder).flatMap((entry) => {
			const rank = SUFFIXES[kind].findIndex((s) => entry.endsWith(s));
			const suffix = SUFFIXES[kind][rank];
			return suffix === undefined ? [] : [{ entry, rank, stem: entry.slice(0, -suffix.length) }];
		});
		entries.sort((a, b) => a.rank - b.rank || (a.entry < b.entry ? -1 : a.entry > b.entry ? 1 : 0));
		for (const { entry, stem } of entries) {
			const file = join(folder, entry);
			// crew's own files declare their file's name (a test holds them to it), so none is parsed here.
			const declared = layer === "builtin" || isWorkflowScript(entry) ? undefined : declaredName(kind, file, folder);
			const name = declared !== undefined && isValidId(declared) ? declared : stem;
			if (!isValidId(name)) continue;
			found.push({ layer, folder, file, name, stem, ...(declared !== undefined ? { declared } : {}) });
		}
	}
	return found;
}

/**
 * The claims on `ref`, one for each layer folder that has one, in the layers' order. Files whose
 * name is `ref` claim it; only when no layer has such a file do files called `ref` claim it, the
 * first of a folder by suffix, so a file name never takes a name another file gives itself.
 */
export function claimsOn(files: readonly NamedFile[], ref: string): Claim[] {
	const named = files.filter((f) => f.name === ref);
	const byName = named.length > 0;
	const claims = new Map<string, { layer: LayerName; folder: string; file: string; twins: string[] }>();
	for (const f of byName ? named : files.filter((file) => file.stem === ref)) {
		const claim = claims.get(f.folder);
		if (!claim) claims.set(f.folder, { layer: f.layer, folder: f.folder, file: f.file, twins: [] });
		else if (byName) claim.twins.push(f.file);
	}
	return [...claims.values()];
}

/** Why a claim with twins cannot be loaded: one line naming every file that claims `name`. */
export function clashMessage(kind: ResourceKind, name: string, claim: Claim): string {
	const files = [claim.file, ...claim.twins];
	const times = files.length === 2 ? "twice" : `${files.length} times`;
	const listed = `${files.slice(0, -1).join(", ")} and ${files.at(-1)}`;
	return `${kind} '${name}' is defined ${times} in ${claim.folder}: ${listed}; rename one (its name: or its file)`;
}

/** A warning for each file whose `name:` is not its file name, which is legal and easy to misread. */
export function nameWarnings(kind: ResourceKind, files: readonly NamedFile[]): Diagnostic[] {
	return files.flatMap(({ file, name, stem, declared }) => {
		if (declared === undefined || declared === stem) return [];
		const message =
			declared === name
				? `${kind} name '${declared}' differs from its file name '${stem}': it is found by either, its name first`
				: `${kind} name '${declared}' is not a valid name (${ID_RULE}): it is known by its file name '${stem}'`;
		return [{ level: "warning" as const, file, message }];
	});
}

/** A file's `name:`, or undefined when it has none or cannot be read (loading it says why). */
function declaredName(kind: ResourceKind, file: string, folder: string): string | undefined {
	try {
		const { fields } = parseDocument(readResourceText(kind, file, folder), file, []);
		const value = fields.name?.value;
		return typeof value === "string" && value !== "" ? value : undefined;
	} catch (error) {
		if (isCrewError(error)) return undefined;
		throw error;
	}
}

function filesIn(dir: string): string[] {
	try {
		return readdirSync(dir).filter((name) => name.endsWith(".md") || isWorkflowScript(name));
	} catch {
		// A layer without the folder, or one crew may not read, has no resources of the kind.
		return [];
	}
}
