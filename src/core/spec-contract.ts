// A spec frozen into a task: what its agent is held to, how it cites its evidence, and what the citations cover.

/** A spec's id, as pi-crew allows it: a letter or digit, then up to 127 of `[A-Za-z0-9._-]`. */
export const SPEC_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export type SpecPriority = "must" | "should" | "could";

/** One acceptance check of a spec, under the requirement it shows. */
export interface FrozenAcceptance {
	readonly id: string;
	readonly check: string;
	readonly command?: string;
	readonly expectedExitCode?: number;
	readonly expectedDigest?: string;
	readonly idempotent?: boolean;
}

/**
 * A spec as a task was given it when its run was planned: later changes to the spec do not reach
 * the task. `trusted`: the user had imported it, unchanged since; only then may its commands run.
 */
export interface SpecSnapshot {
	readonly specId: string;
	readonly version: number;
	readonly title?: string;
	readonly trusted: boolean;
	readonly items: readonly {
		readonly requirement: { readonly id: string; readonly text: string; readonly priority: SpecPriority };
		readonly acceptance: FrozenAcceptance;
	}[];
}

/** The specs a task is held to: frozen, strict or not, and the refs that named no spec. */
export interface TaskSpecs {
	readonly snapshots: readonly SpecSnapshot[];
	readonly strict: boolean;
	readonly unresolved: readonly string[];
}

/**
 * pi-crew's `spec.frozen`, one per spec a task was given when its run was planned (each check by
 * id and words, under its requirement), and `spec.freeze_failed` per ref that named no spec; none
 * for a task without specs.
 */
export function frozenEvents(specs: TaskSpecs | undefined): { type: string; data: Record<string, unknown> }[] {
	if (!specs) return [];
	const frozen = specs.snapshots.map(({ items, ...spec }) => ({
		type: "spec.frozen",
		data: {
			...spec,
			strict: specs.strict,
			items: items.map(({ requirement, acceptance }) => ({
				requirement,
				acceptance: { id: acceptance.id, check: acceptance.check },
			})),
		},
	}));
	const failed = specs.unresolved.map((specId) => ({
		type: "spec.freeze_failed",
		data: { specId, reason: "it is not among the repository's specs" },
	}));
	return [...frozen, ...failed];
}

/** How the error of an attempt that failed its spec checks begins: insights count those attempts by it. */
export const SPEC_CHECK_FAILURE = "the spec check";

/** The line that opens the evidence footer of a result. */
export const EVIDENCE_MARKER = "SPEC-EVIDENCE:";

/**
 * The part of a task's prompt that tells its agent the requirements it is held to, and how to end
 * its answer: the marker line, then one `<acceptance id>: <evidence>` line per check it met.
 */
export function specPrompt(specs: TaskSpecs | undefined): string {
	if (!specs || specs.snapshots.length === 0) return "";
	const lines = ["", "## Requirements this task is held to"];
	for (const spec of specs.snapshots) {
		lines.push("", `Spec ${spec.specId}@v${spec.version}${spec.title ? `: ${spec.title}` : ""}`);
		for (const { requirement, acceptance } of spec.items) {
			lines.push(
				`- ${acceptance.id} (${requirement.priority}, ${requirement.id}: ${requirement.text}): ${acceptance.check}`,
			);
		}
	}
	lines.push(
		"",
		`End your answer with the evidence for each check you met: a line \`${EVIDENCE_MARKER}\`, then one line per check, \`<check id>: <what shows it is met>\`, and nothing after them.${specs.strict ? " Each must's check is run again after you finish: cite only what holds." : ""}`,
	);
	return `${lines.join("\n")}\n`;
}

/**
 * The checks a result cites in its evidence footer, by id: the lines `<id>: <evidence>` after a
 * line that is exactly the marker (spaces around it aside), up to the first other line. Footers
 * given more than once count together; the first citation of an id wins. Undefined: no footer.
 */
export function citedEvidence(result: string): Map<string, string> | undefined {
	const lines = result.split(/\r?\n/);
	let cited: Map<string, string> | undefined;
	let open = false;
	for (const line of lines) {
		const trimmed = line.trim();
		if (trimmed === EVIDENCE_MARKER) {
			cited ??= new Map();
			open = true;
			continue;
		}
		if (!open) continue;
		const citation = /^([^\s:]+)\s*:\s*(.*)$/.exec(trimmed);
		// A blank line keeps the footer open; any other line closes it.
		if (!citation) {
			if (trimmed !== "") open = false;
			continue;
		}
		const [, id, evidence] = citation as unknown as [string, string, string];
		if (!cited?.has(id)) cited?.set(id, evidence);
	}
	return cited;
}

/** What a task's result covers of its specs: pi-crew's gate, which marks an uncovered must `unverified`. */
export interface SpecGate {
	readonly mode: "strict" | "coverage";
	/** `unverified` when a must's check is not cited, the footer is missing, or it cites what no spec has. */
	readonly badge: "unverified" | null;
	readonly footerPresent: boolean;
	readonly missingMustIds: readonly string[];
	readonly unknownIds: readonly string[];
	readonly cited: Readonly<Record<string, string>>;
}

/** The gate of a task held to `specs`, from its `result`. */
export function specGate(specs: TaskSpecs, result: string): SpecGate {
	const cited = citedEvidence(result);
	const known = new Set(specs.snapshots.flatMap((s) => s.items.map((i) => i.acceptance.id)));
	const musts = specs.snapshots.flatMap((s) =>
		s.items.filter((i) => i.requirement.priority === "must").map((i) => i.acceptance.id),
	);
	const missingMustIds = musts.filter((id) => !cited?.has(id));
	const unknownIds = [...(cited?.keys() ?? [])].filter((id) => !known.has(id));
	const short =
		cited === undefined || missingMustIds.length > 0 || unknownIds.length > 0 || specs.unresolved.length > 0;
	return {
		mode: specs.strict ? "strict" : "coverage",
		badge: short ? "unverified" : null,
		footerPresent: cited !== undefined,
		missingMustIds,
		unknownIds,
		cited: Object.fromEntries(cited ?? []),
	};
}

/**
 * What became of one must's check after a strict step: `met`, `failed`, or `not-run` with the
 * reason (an untrusted spec, no command, not idempotent). Its standard output is kept only as a
 * digest, which cannot leak what it printed.
 */
export interface SpecCheck {
	readonly specId: string;
	readonly acceptanceId: string;
	readonly requirementId: string;
	readonly outcome: "met" | "failed" | "not-run";
	readonly exitCode?: number | null;
	/** The sha-256 of its standard output, lowercase hex. */
	readonly digest?: string;
	readonly reason?: string;
}
