// The agent setup keys of pi-crew (system prompt, context, skills, extensions, turns) and how they combine.

/**
 * pi-crew's agent keys that set up an agent's CLI beyond its model and tools. A key left out
 * takes pi-crew's default: the agent's system prompt replaces the CLI's own, and the CLI reads
 * neither the project's context files (AGENTS.md, CLAUDE.md) nor skills of its own finding.
 */
export interface AgentSetup {
	readonly systemPromptMode?: SystemPromptMode;
	readonly inheritProjectContext?: boolean;
	readonly inheritSkills?: boolean;
	/** Skills the agent is given: names, found in the skill folders (`skillFolder`), or paths. */
	readonly skills?: readonly string[];
	/** pi extensions (paths) loaded instead of those pi would find; none when empty. */
	readonly extensions?: readonly string[];
	/** Names of `extensions` (file or folder names, any case) left out. */
	readonly excludeExtensions?: readonly string[];
	/** Most turns the agent may take. */
	readonly maxTurns?: number;
}

export type SystemPromptMode = "replace" | "append";

export const SYSTEM_PROMPT_MODES: readonly SystemPromptMode[] = ["replace", "append"];

/** The keys of an agent's setup, as its file names them. */
export type SetupKey = keyof AgentSetup;

/**
 * `setup` with the skills of the team's role and the workflow's step (pi-crew's `skills=a,b` and
 * `skills: a, b`), each an empty list for `false`. They are added to the agent's own; a role's
 * `false` drops the agent's own (and those its CLI would find), a step's drops the role's too.
 */
export function withSkills(
	setup: AgentSetup | undefined,
	role: readonly string[] | undefined,
	step: readonly string[] | undefined,
): AgentSetup | undefined {
	if (role === undefined && step === undefined) return setup;
	if (step?.length === 0) return { ...setup, skills: [], inheritSkills: false };
	const dropped = role?.length === 0;
	const own = dropped ? [] : (setup?.skills ?? []);
	const skills = [...new Set([...own, ...(role ?? []), ...(step ?? [])])];
	return { ...setup, skills, ...(dropped ? { inheritSkills: false } : {}) };
}

/** Whether the agent's system prompt takes the place of its CLI's own. */
export function replacesSystemPrompt(setup: AgentSetup | undefined): boolean {
	return (setup?.systemPromptMode ?? "replace") === "replace";
}

/**
 * Those of `keys` that `setup` sets to what a CLI without them cannot do: a list with items, or
 * `false` for an inherit key (such a CLI reads its context, or finds its skills, whatever it is
 * told). Left out, a key it lacks leaves the CLI as it is, without a word.
 */
export function unsetKeys(setup: AgentSetup, keys: readonly SetupKey[]): SetupKey[] {
	return keys.filter((key) => {
		const value = setup[key];
		if (value === undefined) return false;
		if (key === "inheritProjectContext" || key === "inheritSkills") return value === false;
		return !Array.isArray(value) || value.length > 0;
	});
}
