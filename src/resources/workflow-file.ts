// Markdown workflow files: frontmatter and one `## step` section per step, read into a checked workflow.

import { basename } from "node:path";
import { ARTIFACT_NAME_RULE, isArtifactName } from "../core/artifact-names.js";
import { errorMessage } from "../core/errors.js";
import { checkId } from "../core/ids.js";
import type { SandboxLevel } from "../core/sandbox-level.js";
import { type ThinkingLevel, thinkingProblem } from "../core/thinking.js";
import { FailurePolicy } from "../core/types.js";
import { parseVerify, type VerifySpec } from "../core/verdict.js";
import { FieldReader } from "./field-reader.js";
import { byLine, type Diagnostic, keyLine, list, parseDocument, readFields } from "./frontmatter.js";

export interface WorkflowStep {
	readonly id: string;
	readonly role: string;
	readonly dependsOn: readonly string[];
	readonly text: string;
	/** Every key of the step as written; a list as its items joined by `, `. */
	readonly fields: Readonly<Record<string, string>>;
	/** The file's line of the step's `##` heading. */
	readonly line?: number;
	/** Limits on each attempt, in ms (0: none), and extra attempts after a retryable failure. */
	readonly timeoutMs?: number;
	readonly stallTimeoutMs?: number;
	/** How long a question its agent asks may wait for an answer, in ms (0: as long as it takes). */
	readonly askTimeoutMs?: number;
	readonly retries?: number;
	readonly model?: string;
	readonly thinking?: ThinkingLevel;
	readonly verify?: VerifySpec;
	/** The step's task waits for a person's approval before it starts. */
	readonly approval?: boolean;
	/** `false`: the step's agent gets no `ask` tool, so it cannot wait for a person. */
	readonly ask?: boolean;
	/** `false`: a retry starts the step's agent afresh rather than continue its session. */
	readonly continue?: boolean;
	/** Whether the step works in a worktree of its own; absent: as the run says. */
	readonly worktree?: boolean;
	/** The step's result is a plan whose tasks join the run. */
	readonly expand?: true;
	/** Where the step may write, as relative paths; `.` is everything. */
	readonly writes?: readonly string[];
	readonly sandbox?: SandboxLevel;
	/** Skills the step's agent is given beside its own; empty (`skills: false`): none at all. */
	readonly skills?: readonly string[];
	/** `attention`: an attempt without a usable answer leaves the task for a person instead of failing it. */
	readonly onMissing?: "attention";
	/** The specs the step's task is held to, by id (pi-crew's `specRefs`). */
	readonly specRefs?: readonly string[];
	/** Whether its specs' must checks are run again after it; absent: as the workflow says. */
	readonly specStrict?: boolean;
}

export interface WorkflowResource {
	readonly name: string;
	readonly description: string;
	readonly maxConcurrency?: number;
	/** What a failed task does to the run, unless the run says otherwise (crew's addition). */
	readonly failure?: FailurePolicy;
	readonly steps: readonly WorkflowStep[];
	readonly file: string;
	/** A TypeScript workflow script: its tasks come from running it, so it has no steps. */
	readonly script?: true;
	/** Whether its steps' specs are strict, unless a step says otherwise (pi-crew's `specStrict`). */
	readonly specStrict?: boolean;
}

const STEP_KEYS: ReadonlySet<string> = new Set([
	"role",
	"dependsOn",
	"parallelGroup",
	"output",
	"reads",
	"model",
	"thinking",
	"skills",
	"progress",
	"worktree",
	"verify",
	"task",
	"seedPaths",
	"timeout",
	"stallTimeout",
	"retries",
	"approval",
	"ask",
	"askTimeout",
	"continue",
	"expand",
	"writes",
	"sandbox",
	"onMissing",
	"specRefs",
	"specStrict",
]);

const KNOWN: ReadonlySet<string> = new Set([
	"name",
	"description",
	"maxConcurrency",
	"topology",
	"failure",
	"triggers",
	"useWhen",
	"avoidWhen",
	"specStrict",
]);

/**
 * Reads a workflow: frontmatter, then one `## <step-id>` section per step with `key: value` lines
 * (a key with nothing after its colon may go on over indented lines or `- ` items, as YAML reads
 * them; `key: |` takes the indented block), a blank line and the task text. Anything before the
 * first `##` is prose and ignored. Every step value the planner uses is read and checked here, so
 * `crew validate` and `crew run` refuse the same files.
 */
export function parseWorkflow(text: string, file: string): { workflow: WorkflowResource; diagnostics: Diagnostic[] } {
	const diagnostics: Diagnostic[] = [];
	const { fields, body, bodyLine } = parseDocument(text, file, diagnostics);
	const read = new FieldReader(fields, file, diagnostics);
	read.checkKeys(KNOWN, "workflow field");
	const lines = body.replace(/<!--[\s\S]*?-->/g, (comment) => comment.replace(/[^\n]/g, "")).split("\n");
	const steps: WorkflowStep[] = [];
	const starts = lines.flatMap((line, i) => (/^##[ \t]+/.test(line) ? [i] : []));
	for (const [n, start] of starts.entries()) {
		const section = lines.slice(start, starts[n + 1] ?? lines.length);
		steps.push(parseStep(section, bodyLine + start, file, diagnostics));
	}
	diagnostics.push(...checkOutputs(steps, file));
	const policies: readonly string[] = Object.values(FailurePolicy);
	const failure = read.text("failure") || undefined;
	if (failure !== undefined && !policies.includes(failure)) {
		read.error("failure", `failure '${failure}': expected ${policies.join(", ")}`);
	}
	const max = read.integer("maxConcurrency", 1);
	return {
		workflow: {
			name: read.text("name") || basename(file).replace(/(\.workflow)?\.md$/, ""),
			description: read.text("description") ?? "",
			...(max !== undefined ? { maxConcurrency: max } : {}),
			...(failure !== undefined && policies.includes(failure) ? { failure: failure as FailurePolicy } : {}),
			...read.specStrict(),
			steps,
			file,
		},
		diagnostics: byLine(diagnostics),
	};
}

/** One `## id` section, whose heading is the file's line `line`. */
function parseStep(section: readonly string[], line: number, file: string, diagnostics: Diagnostic[]): WorkflowStep {
	const id = (section[0] ?? "").replace(/^##[ \t]+/, "").trim();
	const keys = keyBlock(section);
	const read = new FieldReader(
		readFields(section.slice(1, keys), line + 1, file, diagnostics),
		file,
		diagnostics,
		`step '${id}': `,
	);
	try {
		checkId("step", id);
	} catch (error) {
		diagnostics.push({ level: "error", file, line, message: errorMessage(error) });
	}
	read.checkKeys(STEP_KEYS, "key");
	const text = read.text("task") ?? section.slice(keys).join("\n").trim();
	if (text === "") diagnostics.push({ level: "error", file, line, message: `step '${id}' has no task text` });
	const verify = parseVerify(read.text("verify"));
	const approval = read.flag("approval");
	const ask = read.flag("ask");
	const continues = read.flag("continue");
	const worktree = read.flag("worktree");
	const expand = read.text("expand");
	if (expand !== undefined && expand !== "plan" && expand !== "")
		read.error("expand", `expand '${expand}': expected plan`);
	const writes = (read.list("writes") ?? []).flatMap((scope) => {
		const normalized = normalizeScope(scope);
		if (normalized !== undefined) return [normalized];
		read.error("writes", `invalid write scope '${scope}': expected a path inside the repository`);
		return [];
	});
	const skills = read.list("skills");
	const onMissing = read.text("onMissing");
	if (onMissing !== undefined && onMissing !== "fail" && onMissing !== "attention")
		read.error("onMissing", `onMissing '${onMissing}': expected fail or attention`);
	const model = read.text("model");
	const thinking = read.text("thinking") || undefined;
	const thinkingError = thinking === undefined ? undefined : thinkingProblem(thinking);
	if (thinkingError) read.error("thinking", thinkingError);
	return {
		id,
		role: read.text("role") || id,
		dependsOn: read.list("dependsOn") ?? [],
		text,
		fields: read.flat(),
		line,
		...stepLimits(read),
		...(model ? { model } : {}),
		...(thinking !== undefined && !thinkingError ? { thinking: thinking as ThinkingLevel } : {}),
		...(verify ? { verify } : {}),
		...(approval !== undefined ? { approval } : {}),
		...(ask !== undefined ? { ask } : {}),
		...(continues !== undefined ? { continue: continues } : {}),
		...(worktree !== undefined ? { worktree } : {}),
		...(expand === "plan" ? { expand: true } : {}),
		...(writes.length > 0 ? { writes } : {}),
		...read.sandbox(),
		...(onMissing === "attention" ? { onMissing } : {}),
		...(skills !== undefined ? { skills } : {}),
		...read.specRefs(),
		...read.specStrict(),
	};
}

/**
 * How many of a section's lines, its heading first, are the step's key lines: they start right
 * after the heading and end at a blank line or text. A key with nothing after its colon goes on over
 * indented lines and `- ` items; a block scalar (`key: |`) over indented lines, blank ones included.
 */
function keyBlock(section: readonly string[]): number {
	let k = 1;
	let open: "none" | "value" | "block" = "none";
	for (; k < section.length; k++) {
		const line = section[k] ?? "";
		const key = keyLine(line);
		if (key) {
			const rest = line.slice(line.indexOf(":") + 1).trim();
			open = key.block ? "block" : rest === "" ? "value" : "none";
			continue;
		}
		const goesOn = line.trim() !== "" && (/^\s/.test(line) || (open === "value" && line.startsWith("-")));
		const nextText = section.slice(k).find((l) => l.trim() !== "") ?? "";
		const blankInBlock = open === "block" && line.trim() === "" && /^\s+\S/.test(nextText);
		if (!(open !== "none" && goesOn) && !blankInBlock) break;
	}
	return k;
}

/** A write scope as a relative path without `./`, a trailing `/` or `..`; `.` means everything. */
function normalizeScope(path: string): string | undefined {
	const parts = path.split("/").filter((p) => p !== "" && p !== ".");
	if (parts.includes("..") || path.startsWith("/")) return undefined;
	return parts.join("/") || ".";
}

function stepLimits(
	read: FieldReader,
): Pick<WorkflowStep, "timeoutMs" | "stallTimeoutMs" | "askTimeoutMs" | "retries"> {
	const limits: { timeoutMs?: number; stallTimeoutMs?: number; askTimeoutMs?: number; retries?: number } =
		read.limits(true);
	const retries = read.integer("retries", 0);
	if (retries !== undefined) limits.retries = retries;
	return limits;
}

/**
 * A step's `output` and `reads` name files in the run's artifacts, so they must stay inside them,
 * and each shared file has one writer. A step reads a file when it starts, so one that does not
 * wait for the file's writer would read it or not by chance: worth a warning, as is a `reads` entry
 * no step writes (by its `output`, or as `<step>.md`).
 */
function checkOutputs(steps: readonly WorkflowStep[], file: string): Diagnostic[] {
	const diagnostics: Diagnostic[] = [];
	const say = (step: WorkflowStep, level: Diagnostic["level"], message: string) =>
		diagnostics.push({ level, file, ...(step.line !== undefined ? { line: step.line } : {}), message });
	const outside = (step: WorkflowStep, what: string) =>
		say(step, "error", `step '${step.id}': ${what} must name a file in the run's folder: ${ARTIFACT_NAME_RULE}`);
	const writers = new Map<string, string>(steps.map((s) => [`${s.id}.md`, s.id]));
	for (const step of steps) {
		const output = step.fields.output;
		if (!output || output === "false") continue;
		const other = writers.get(output);
		if (!isArtifactName(output)) outside(step, `output '${output}'`);
		else if (other !== undefined && other !== step.id)
			say(
				step,
				"error",
				`step '${step.id}': output '${output}' is step '${other}''s too: a shared file has one writer`,
			);
		else writers.set(output, step.id);
	}
	const waits = waitsFor(steps);
	for (const step of steps) {
		for (const read of list(step.fields.reads)) {
			const writer = writers.get(read);
			if (!isArtifactName(read)) outside(step, `reads '${read}'`);
			else if (writer === undefined) say(step, "warning", `step '${step.id}' reads '${read}', which no step writes`);
			else if (writer !== step.id && !waits(step.id).has(writer))
				say(
					step,
					"warning",
					`step '${step.id}' reads '${read}', written by step '${writer}', which it does not wait for: add dependsOn: ${writer}`,
				);
		}
	}
	return diagnostics;
}

/** The steps each step waits for, directly or through others (a cycle is reported elsewhere). */
function waitsFor(steps: readonly WorkflowStep[]): (id: string) => ReadonlySet<string> {
	const byId = new Map(steps.map((s) => [s.id, s]));
	const found = new Map<string, Set<string>>();
	const of = (id: string): Set<string> => {
		const known = found.get(id);
		if (known) return known;
		const all = new Set<string>();
		found.set(id, all);
		for (const dep of byId.get(id)?.dependsOn ?? []) {
			all.add(dep);
			for (const further of of(dep)) all.add(further);
		}
		return all;
	};
	return of;
}
