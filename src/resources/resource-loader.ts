// Loading agents, teams and workflows by name across builtin, user and project layers, or by path.

import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { CrewError, ErrorCode, errorMessage, isCrewError } from "../core/errors.js";
import { isValidId } from "../core/ids.js";
import { didYouMean } from "../core/near-names.js";
import { type AgentResource, parseAgent } from "./agent-file.js";
import type { Diagnostic } from "./frontmatter.js";
import { parseTeam, type TeamResource } from "./team-file.js";
import { parseWorkflow, type WorkflowResource } from "./workflow-file.js";
import { isWorkflowScript, parseWorkflowScript, SCRIPT_SUFFIXES } from "./workflow-script-file.js";

export interface Loaded<T> {
	readonly item: T;
	readonly diagnostics: readonly Diagnostic[];
	/** The layer the file comes from; a file named by path counts as the project's. */
	readonly layer: LayerName;
}

export type ResourceKind = "agent" | "team" | "workflow";

/** Where resources come from, from weakest to strongest, except that a project never replaces. */
export type LayerName = "builtin" | "user" | "project";

/** A folder holding `agents/`, `teams/` and `workflows/` of one layer. */
export interface ResourceLayer {
	readonly layer: LayerName;
	readonly dir: string;
}

/** One resource as listed: its name, the layer and file it comes from, and the item when it parses. */
export interface Listed<T> {
	readonly name: string;
	readonly layer: LayerName;
	readonly file: string;
	readonly item?: T;
}

const SUFFIXES: Record<ResourceKind, readonly string[]> = {
	agent: [".md"],
	team: [".team.md", ".md"],
	workflow: [".workflow.md", ...SCRIPT_SUFFIXES, ".md"],
};

export const FOLDERS: Record<ResourceKind, string> = { agent: "agents", team: "teams", workflow: "workflows" };

interface Candidate {
	readonly layer: LayerName;
	readonly file: string;
}

type Parsed<T> = Omit<Loaded<T>, "layer">;

const PARSERS: { [K in ResourceKind]: (text: string, file: string) => Parsed<Resource<K>> } = {
	agent: (text, file) => {
		const { agent, diagnostics } = parseAgent(text, file);
		return { item: agent, diagnostics };
	},
	team: (text, file) => {
		const { team, diagnostics } = parseTeam(text, file);
		return { item: team, diagnostics };
	},
	workflow: (text, file) => {
		const { workflow, diagnostics } = isWorkflowScript(file)
			? parseWorkflowScript(text, file)
			: parseWorkflow(text, file);
		return { item: workflow, diagnostics };
	},
};

export type Resource<K extends ResourceKind> = K extends "agent"
	? AgentResource
	: K extends "team"
		? TeamResource
		: WorkflowResource;

/**
 * Finds agents, teams and workflows by name across layers, or by path. A user resource overrides a
 * builtin of the same name; a project resource may add names but never replaces a builtin or user
 * one (that is reported as a warning), so a repository cannot quietly change what a name the user
 * relies on runs. A file with errors is refused with all of them named when asked for; listing
 * reports bad files as diagnostics and goes on.
 */
export class ResourceLoader {
	readonly #layers: readonly ResourceLayer[];
	readonly #cwd: string;

	/** `layers` in order of precedence within their kind: the first user layer beats the second. */
	constructor(options: { layers: readonly ResourceLayer[]; cwd: string }) {
		this.#layers = options.layers;
		this.#cwd = options.cwd;
	}

	workflow(ref: string): Loaded<WorkflowResource> {
		return this.load("workflow", ref);
	}

	team(ref: string): Loaded<TeamResource> {
		return this.load("team", ref);
	}

	agent(ref: string): Loaded<AgentResource> {
		return this.load("agent", ref);
	}

	/** The agent named `name`, or undefined when no layer defines it. */
	findAgent(name: string): Loaded<AgentResource> | undefined {
		if (this.#resolve("agent", name).length === 0) return undefined;
		return this.agent(name);
	}

	/** The file that defines `ref`, or undefined when none does. */
	fileOf(kind: ResourceKind, ref: string): string | undefined {
		return this.#resolve(kind, ref)[0]?.file;
	}

	load<K extends ResourceKind>(kind: K, ref: string): Loaded<Resource<K>> {
		const [winner, ...shadowed] = this.#resolve(kind, ref);
		if (!winner) {
			const where = this.#layers.map((l) => join(l.dir, FOLDERS[kind])).join(", ");
			throw new CrewError(
				ErrorCode.NotFound,
				`no ${kind} '${ref}': not a file, and not a name found in ${where}${didYouMean(ref, this.#names(kind))}`,
			);
		}
		const loaded = this.#parse(kind, winner.file);
		const errors = loaded.diagnostics.filter((d) => d.level === "error");
		if (errors.length > 0) {
			throw new CrewError(
				ErrorCode.InvalidResource,
				`invalid ${kind} ${winner.file}: ${errors.map((d) => (d.line === undefined ? d.message : `line ${d.line}: ${d.message}`)).join("; ")}`,
			);
		}
		return {
			item: loaded.item,
			diagnostics: [...loaded.diagnostics, ...shadowWarnings(kind, ref, winner, shadowed)],
			layer: winner.layer,
		};
	}

	/** Every resource of a kind, by name, from the layer that wins it; bad files come back as diagnostics. */
	list<K extends ResourceKind>(kind: K): { items: Listed<Resource<K>>[]; diagnostics: Diagnostic[] } {
		const names = this.#names(kind);
		const items: Listed<Resource<K>>[] = [];
		const diagnostics: Diagnostic[] = [];
		for (const name of [...names].sort()) {
			const [winner, ...shadowed] = this.#resolve(kind, name);
			if (!winner) continue;
			diagnostics.push(...shadowWarnings(kind, name, winner, shadowed));
			try {
				const loaded = this.#parse(kind, winner.file);
				diagnostics.push(...loaded.diagnostics);
				items.push({ name, ...winner, item: loaded.item });
			} catch (error) {
				diagnostics.push({ level: "error", file: winner.file, message: errorMessage(error) });
				items.push({ name, ...winner });
			}
		}
		return { items, diagnostics };
	}

	/** The names of a kind that any layer has a file for. */
	#names(kind: ResourceKind): Set<string> {
		const names = new Set<string>();
		for (const { dir } of this.#layers) {
			for (const file of filesIn(join(dir, FOLDERS[kind]))) {
				const name = nameOf(kind, file);
				if (name !== undefined) names.add(name);
			}
		}
		return names;
	}

	/** The files that could define `ref`: the one that counts first, then the project files it shadows. */
	#resolve(kind: ResourceKind, ref: string): Candidate[] {
		if (ref.includes("/") || ref.endsWith(".md") || isWorkflowScript(ref)) {
			const file = resolve(this.#cwd, ref);
			return existsSync(file) ? [{ layer: "project", file }] : [];
		}
		if (!isValidId(ref)) return [];
		const found: Candidate[] = [];
		for (const { layer, dir } of this.#layers) {
			const file = SUFFIXES[kind].map((s) => join(dir, FOLDERS[kind], `${ref}${s}`)).find((f) => existsSync(f));
			if (file) found.push({ layer, file });
		}
		const rank = (c: Candidate) => (c.layer === "user" ? 0 : c.layer === "builtin" ? 1 : 2);
		const ordered = found.map((c, i) => ({ c, i })).sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i);
		const [winner] = ordered;
		if (!winner) return [];
		return [
			winner.c,
			...ordered
				.slice(1)
				.filter(({ c }) => c.layer === "project")
				.map(({ c }) => c),
		];
	}

	#parse<K extends ResourceKind>(kind: K, file: string): Parsed<Resource<K>> {
		const folder = this.#layers.map(({ dir }) => join(dir, FOLDERS[kind])).find((f) => file.startsWith(`${f}/`));
		const text = readResourceText(kind, file, folder);
		try {
			return PARSERS[kind](text, file) as Parsed<Resource<K>>;
		} catch (error) {
			if (!isCrewError(error)) throw error;
			throw new CrewError(ErrorCode.InvalidResource, `invalid ${kind} ${file}: ${error.message}`, { cause: error });
		}
	}
}

/** Largest resource file read, in bytes: agents, teams and workflows are a few pages of text. */
const MAX_RESOURCE_BYTES = 1024 * 1024;

/**
 * A resource file's text, or a clear error: not a file, too large, not UTF-8 text, or, for a file of
 * a layer's `folder`, a link to a file outside that folder (a repository's `agents/x.md` linked to a
 * user's credentials would otherwise be read as an agent, into views and prompts).
 */
function readResourceText(kind: ResourceKind, file: string, folder: string | undefined): string {
	const refuse = (why: string, cause?: unknown) =>
		new CrewError(ErrorCode.InvalidResource, `cannot read ${kind} ${file}: ${why}`, { cause });
	let bytes: Buffer;
	try {
		if (folder !== undefined) {
			const real = realpathSync(file);
			const inside = realpathSync(folder);
			if (!real.startsWith(`${inside}/`)) throw refuse(`it is a link to ${real}, outside ${folder}`);
		}
		const stat = statSync(file);
		if (stat.isDirectory()) throw refuse("it is a directory, not a file");
		if (!stat.isFile()) throw refuse("it is not a regular file");
		if (stat.size > MAX_RESOURCE_BYTES) {
			throw refuse(`it is too large (${(stat.size / 1024 / 1024).toFixed(1)} MiB; at most 1 MiB)`);
		}
		bytes = readFileSync(file);
	} catch (error) {
		if (isCrewError(error)) throw error;
		throw refuse(errorMessage(error), error);
	}
	if (bytes.includes(0)) throw refuse("it is not a text file (it holds NUL bytes)");
	try {
		return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
	} catch (error) {
		throw refuse("it is not UTF-8 text", error);
	}
}

function shadowWarnings(
	kind: ResourceKind,
	name: string,
	winner: Candidate,
	shadowed: readonly Candidate[],
): Diagnostic[] {
	return shadowed.map((c) => ({
		level: "warning" as const,
		file: c.file,
		message: `project ${kind} '${name}' is ignored: the ${winner.layer} ${kind} of that name (${winner.file}) is used; a project may add names, not replace them`,
	}));
}

function filesIn(dir: string): string[] {
	try {
		return readdirSync(dir).filter((name) => name.endsWith(".md") || isWorkflowScript(name));
	} catch {
		return [];
	}
}

/** The name a file in a kind's folder defines, or undefined for a file of another kind. */
function nameOf(kind: ResourceKind, file: string): string | undefined {
	const suffix = SUFFIXES[kind].find((s) => file.endsWith(s));
	if (!suffix) return undefined;
	const name = file.slice(0, -suffix.length);
	return isValidId(name) ? name : undefined;
}
