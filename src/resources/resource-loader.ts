import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CrewError, ErrorCode, errorMessage } from "../core/errors.js";
import { isValidId } from "../core/ids.js";
import { type AgentResource, parseAgent } from "./agent-file.js";
import type { Diagnostic } from "./frontmatter.js";
import { parseTeam, type TeamResource } from "./team-file.js";
import { parseWorkflow, type WorkflowResource } from "./workflow-file.js";

export interface Loaded<T> {
	readonly item: T;
	readonly diagnostics: readonly Diagnostic[];
}

type Kind = "agent" | "team" | "workflow";

const SUFFIXES: Record<Kind, readonly string[]> = {
	agent: [".md"],
	team: [".team.md", ".md"],
	workflow: [".workflow.md", ".md"],
};

const FOLDERS: Record<Kind, string> = { agent: "agents", team: "teams", workflow: "workflows" };

/**
 * Finds agents, teams and workflows by name in the project's `.crew/` folders, or by path. A file
 * with errors is refused with all of them named; warnings come back with the item.
 */
export class ResourceLoader {
	readonly #crewDir: string;
	readonly #cwd: string;

	constructor(options: { crewDir: string; cwd: string }) {
		this.#crewDir = options.crewDir;
		this.#cwd = options.cwd;
	}

	workflow(ref: string): Loaded<WorkflowResource> {
		return this.#load("workflow", ref, (text, file) => {
			const { workflow, diagnostics } = parseWorkflow(text, file);
			return { item: workflow, diagnostics };
		});
	}

	team(ref: string): Loaded<TeamResource> {
		return this.#load("team", ref, (text, file) => {
			const { team, diagnostics } = parseTeam(text, file);
			return { item: team, diagnostics };
		});
	}

	/** The agent named `name`, or undefined when no file defines it. */
	findAgent(name: string): Loaded<AgentResource> | undefined {
		if (!this.#locate("agent", name)) return undefined;
		return this.agent(name);
	}

	agent(ref: string): Loaded<AgentResource> {
		return this.#load("agent", ref, (text, file) => {
			const { agent, diagnostics } = parseAgent(text, file);
			return { item: agent, diagnostics };
		});
	}

	#locate(kind: Kind, ref: string): string | undefined {
		if (ref.includes("/") || ref.endsWith(".md")) {
			const file = resolve(this.#cwd, ref);
			return existsSync(file) ? file : undefined;
		}
		if (!isValidId(ref)) return undefined;
		for (const suffix of SUFFIXES[kind]) {
			const file = join(this.#crewDir, FOLDERS[kind], `${ref}${suffix}`);
			if (existsSync(file)) return file;
		}
		return undefined;
	}

	#load<T>(kind: Kind, ref: string, parse: (text: string, file: string) => Loaded<T>): Loaded<T> {
		const file = this.#locate(kind, ref);
		if (!file) {
			const where = join(this.#crewDir, FOLDERS[kind]);
			throw new CrewError(ErrorCode.NotFound, `no ${kind} '${ref}': not a file, and not a name found in ${where}`);
		}
		let text: string;
		try {
			text = readFileSync(file, "utf8");
		} catch (error) {
			throw new CrewError(ErrorCode.InvalidResource, `cannot read ${kind} ${file}: ${errorMessage(error)}`, {
				cause: error,
			});
		}
		const loaded = parse(text, file);
		const errors = loaded.diagnostics.filter((d) => d.level === "error");
		if (errors.length > 0) {
			throw new CrewError(
				ErrorCode.InvalidResource,
				`invalid ${kind} ${file}: ${errors.map((d) => d.message).join("; ")}`,
			);
		}
		return loaded;
	}
}
