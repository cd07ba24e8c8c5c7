// Loading agents, teams and workflows by name across builtin, user and project layers, or by path.

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { CrewError, ErrorCode, errorMessage, isCrewError } from "../core/errors.js";
import { isValidId } from "../core/ids.js";
import { didYouMean } from "../core/near-names.js";
import { type AgentResource, parseAgent } from "./agent-file.js";
import type { Diagnostic } from "./frontmatter.js";
import type { LayerName, ResourceKind, ResourceLayer } from "./resource-layer.js";
import {
	type Claim,
	claimsOn,
	clashMessage,
	FOLDERS,
	type NamedFile,
	namedFiles,
	nameWarnings,
} from "./resource-names.js";
import { readResourceText } from "./resource-text.js";
import { parseTeam, type TeamResource } from "./team-file.js";
import { parseWorkflow, type WorkflowResource } from "./workflow-file.js";
import { isWorkflowScript, parseWorkflowScript } from "./workflow-script-file.js";

export interface Loaded<T> {
	readonly item: T;
	readonly diagnostics: readonly Diagnostic[];
	/** The layer the file comes from; a file named by path counts as the project's. */
	readonly layer: LayerName;
}

/** One resource as listed: its name, the layer and file it comes from, and the item when it parses. */
export interface Listed<T> {
	readonly name: string;
	readonly layer: LayerName;
	readonly file: string;
	readonly item?: T;
}

/** A file that could define a name; a file named by path has no folder and no twins. */
type Candidate = Pick<Claim, "layer" | "file"> & Partial<Claim>;

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
 * Finds agents, teams and workflows by name across layers, or by path. A file's name is its
 * `name:`, else its file name; a name no file gives itself also finds the file of that file name.
 * Two files of one layer that claim one name are refused, naming both. A user resource overrides a
 * builtin of the same name; a project resource may add names but never replaces a builtin or user
 * one (that is reported as a warning), so a repository cannot quietly change what a name the user
 * relies on runs. A file with errors is refused with all of them named when asked for; listing
 * reports bad files as diagnostics and goes on.
 */
export class ResourceLoader {
	readonly #layers: readonly ResourceLayer[];
	readonly #cwd: string;
	/** Each kind's files and names, read at the kind's first look-up; see the constructor. */
	readonly #named = new Map<ResourceKind, readonly NamedFile[]>();

	/**
	 * `layers` in order of precedence within their kind: the first user layer beats the second. A
	 * loader reads a kind's folders once, so one plan sees one set of files: make one per operation.
	 */
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
			const names = new Set(this.#files(kind).map((f) => f.name));
			throw new CrewError(
				ErrorCode.NotFound,
				`no ${kind} '${ref}': not a file, and not a name found in ${where}${didYouMean(ref, names)}`,
			);
		}
		if (hasTwins(winner)) throw new CrewError(ErrorCode.InvalidResource, clashMessage(kind, ref, winner));
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

	/**
	 * Every resource of a kind, by name, from the layer that wins it; bad files, names claimed twice
	 * in a layer and a `name:` that is not the file's name come back as diagnostics.
	 */
	list<K extends ResourceKind>(kind: K): { items: Listed<Resource<K>>[]; diagnostics: Diagnostic[] } {
		const files = this.#files(kind);
		const items: Listed<Resource<K>>[] = [];
		const diagnostics: Diagnostic[] = nameWarnings(kind, files);
		for (const name of [...new Set(files.map((f) => f.name))].sort()) {
			const [winner, ...shadowed] = this.#resolve(kind, name);
			if (!winner) continue;
			diagnostics.push(...shadowWarnings(kind, name, winner, shadowed));
			const listed = { name, layer: winner.layer, file: winner.file };
			if (hasTwins(winner)) {
				diagnostics.push({ level: "error", file: winner.file, message: clashMessage(kind, name, winner) });
				items.push(listed);
				continue;
			}
			try {
				const loaded = this.#parse(kind, winner.file);
				diagnostics.push(...loaded.diagnostics);
				items.push({ ...listed, item: loaded.item });
			} catch (error) {
				diagnostics.push({ level: "error", file: winner.file, message: errorMessage(error) });
				items.push(listed);
			}
		}
		return { items, diagnostics };
	}

	/** The files that could define `ref`: the one that counts first, then the project files it shadows. */
	#resolve(kind: ResourceKind, ref: string): Candidate[] {
		if (ref.includes("/") || ref.endsWith(".md") || isWorkflowScript(ref)) {
			const file = resolve(this.#cwd, ref);
			return existsSync(file) ? [{ layer: "project", file }] : [];
		}
		if (!isValidId(ref)) return [];
		const found: Candidate[] = claimsOn(this.#files(kind), ref);
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

	#files(kind: ResourceKind): readonly NamedFile[] {
		const known = this.#named.get(kind);
		if (known) return known;
		const files = namedFiles(kind, this.#layers);
		this.#named.set(kind, files);
		return files;
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

function hasTwins(candidate: Candidate): candidate is Claim {
	return (candidate.twins?.length ?? 0) > 0;
}
