// Starting attempts: a task's prompt rendered and stored, its attempt recorded, or a dead runner's followed.

import { existsSync } from "node:fs";
import { readKnowledge } from "../../config/knowledge-file.js";
import { withAnswers } from "../../core/asked.js";
import { withKnowledge } from "../../core/knowledge.js";
import { DEFAULT_PROMPT_LIMITS, renderTaskPrompt, withReads } from "../../core/prompt.js";
import type { ArtifactRecord, AttemptRecord, RunRecord } from "../../core/records.js";
import { redact } from "../../core/redact.js";
import { taskSandbox } from "../../core/sandbox.js";
import type { AttemptSandbox } from "../../core/sandbox-level.js";
import { requirementsPrompt, VERIFIER_ROLE } from "../../core/spec-coverage.js";
import type { AgentSpec, TaskSpec } from "../../core/types.js";
import { withCheckEvidence } from "../../core/verdict.js";
import type { TaskRequest } from "../../runtimes/worker-runtime.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import type { EngineOptions } from "../options.js";
import type { Start } from "./live-attempt.js";
import { sessionPlan } from "./session-plan.js";
import { attemptTraceparent } from "./trace-ids.js";

/** How a prompt names the project's knowledge file. */
const KNOWLEDGE_SHOWN = ".crew/knowledge.md";

/**
 * Renders and stores a task's prompt (the project's knowledge, its text, its dependencies'
 * results, the shared files it reads, what its last check printed) and records its new attempt
 * on `model`: what its worker starts from.
 */
export function recordStart(
	deps: {
		readonly store: RunStore;
		readonly files: ArtifactFiles;
		readonly crewDir: string;
		readonly trusted?: boolean;
		readonly options: Pick<EngineOptions, "traced">;
	},
	lease: Lease,
	run: RunRecord,
	task: { readonly index: number; readonly spec: TaskSpec; readonly model: string | undefined },
): Start {
	const { store, files, crewDir } = deps;
	const { spec, model } = task;
	const runId = lease.runId;
	const runtime = run.options.runtime ?? spec.agent.runtime;
	const shown = spec.dependsOn.slice(0, DEFAULT_PROMPT_LIMITS.listed).map((dep) => {
		const { excerpt, chars } = store.queries.resultExcerpt(runId, dep);
		const artifact = files.display(runId, `tasks/${dep}/result.md`, run.options.cwd);
		return { taskId: dep, excerpt, totalChars: chars, artifact };
	});
	const rendered = withReads(
		renderTaskPrompt(spec.text, shown, DEFAULT_PROMPT_LIMITS, spec.dependsOn.length),
		(spec.reads ?? []).map((name) => ({ name, text: sharedFile(files, runId, name) })),
	);
	const evidence = store.queries.evidenceOf(runId, spec.id);
	const checked = evidence === undefined ? rendered : withCheckEvidence(rendered, evidence);
	const judges = spec.role === VERIFIER_ROLE || spec.until?.judge === true;
	const required = judges ? store.queries.requirements(runId).filter((r) => r.taskId !== spec.id) : [];
	const answered = store.questions.answers(runId, spec.id);
	const prompt = withAnswers(
		checked + requirementsPrompt(required),
		answered.map((q) => ({ question: q.question, answer: q.answer ?? "" })),
	);
	const known = run.options.knowledge === false ? undefined : readKnowledge(crewDir);
	// Redacted as the rest of a prompt is: a token noted in the file reaches no provider.
	const told =
		known === undefined || "refused" in known
			? prompt
			: withKnowledge(prompt, { ...known, text: redact(known.text) }, KNOWLEDGE_SHOWN);
	const promptArtifact = files.write(runId, spec.id, `tasks/${spec.id}/prompt.md`, "prompt", told);
	const asked = taskSandbox(spec, run.options, crewDir);
	// A dry run starts no process: nothing to confine.
	const sandbox = runtime === "dry-run" ? { ...asked, level: "off" as const } : asked;
	const { level, readOnly } = sandbox;
	// Read before the new attempt joins the record: the latest one is the attempt before.
	const session = sessionPlan(store, run, spec, { runtime, model });
	const attempt = store.attempts.start(lease, spec.id, runtime, model, { level, readOnly });
	for (const q of answered) if (q.state === "answered") store.questions.delivered(lease, q, spec.id, attempt, false);
	const agent = model ? { ...spec.agent, model } : spec.agent;
	return start(files, run, task.index, runtime, {
		spec,
		agent,
		sandbox,
		prompt: told,
		promptArtifact,
		attempt,
		epoch: lease.epoch,
		trusted: deps.trusted === true,
		traced: deps.options.traced,
		session,
	});
}

/**
 * The start of an attempt a dead runner left running elsewhere, to be followed again under
 * `runtime`: its stored prompt and its own record, nothing new recorded.
 */
export async function followedStart(
	{
		files,
		crewDir,
		trusted,
		options,
	}: {
		readonly files: ArtifactFiles;
		readonly crewDir: string;
		readonly trusted?: boolean;
		readonly options: Pick<EngineOptions, "traced">;
	},
	run: RunRecord,
	task: { readonly index: number; readonly spec: TaskSpec; readonly attempt: AttemptRecord; readonly runtime: string },
): Promise<Start> {
	const { spec, attempt } = task;
	const name = `tasks/${spec.id}/prompt.md`;
	const promptArtifact = await files.describe(run.id, spec.id, name, "prompt");
	const prompt = files.read(run.id, name);
	// Followed as it was started: confined as its record says.
	const sandbox = { ...taskSandbox(spec, run.options, crewDir), ...attempt.sandbox };
	return start(files, run, task.index, task.runtime, {
		spec,
		sandbox,
		agent: spec.agent,
		prompt,
		promptArtifact,
		attempt,
		epoch: attempt.epoch,
		trusted: trusted === true,
		traced: options.traced,
	});
}

/** The start of attempt `attempt` of a task: its request, with the task's folder as its artifact folder. */
function start(
	files: ArtifactFiles,
	run: RunRecord,
	index: number,
	runtime: string,
	a: {
		readonly spec: TaskSpec;
		readonly agent: AgentSpec;
		readonly prompt: string;
		readonly promptArtifact: ArtifactRecord;
		readonly attempt: { readonly id: number; readonly number: number };
		readonly epoch: number;
		readonly trusted: boolean;
		readonly sandbox: AttemptSandbox;
		readonly traced: boolean;
		readonly session?: TaskRequest["session"];
	},
): Start {
	const prefix = `tasks/${a.spec.id}`;
	return {
		index,
		runtime,
		attemptId: a.attempt.id,
		promptArtifact: a.promptArtifact,
		request: {
			runId: run.id,
			taskId: a.spec.id,
			stepId: a.spec.stepId,
			role: a.spec.role,
			attempt: a.attempt.number,
			attemptId: a.attempt.id,
			epoch: a.epoch,
			agent: a.agent,
			prompt: a.prompt,
			promptFile: files.path(run.id, `${prefix}/prompt.md`),
			cwd: run.options.cwd,
			artifactDir: files.path(run.id, prefix),
			artifactPrefix: prefix,
			projectTrusted: a.trusted,
			sandbox: a.sandbox,
			...(run.options.nested ? { depth: run.options.nested.depth + 1 } : {}),
			...(a.traced ? { traceparent: attemptTraceparent(run.id, a.spec.id, a.attempt.number) } : {}),
			...(a.session ? { session: a.session } : {}),
		},
	};
}

/**
 * The text of the run's shared file `name`: what a step whose `output:` names it answered, else,
 * for `<task>.md` (pi-crew's name for a step's output when it names none), that task's result;
 * undefined when neither is written.
 */
function sharedFile(files: ArtifactFiles, runId: string, name: string): string | undefined {
	const paths = [`shared/${name}`, ...(name.endsWith(".md") ? [`tasks/${name.slice(0, -3)}/result.md`] : [])];
	for (const path of paths) {
		// Not written (yet): the next name, if any.
		if (existsSync(files.path(runId, path))) return files.read(runId, path);
	}
	return undefined;
}
