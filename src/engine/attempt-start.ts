import { DEFAULT_PROMPT_LIMITS, renderTaskPrompt } from "../core/prompt.js";
import type { AttemptRecord, RunRecord, TaskSpec } from "../core/types.js";
import { withCheckEvidence } from "../core/verdict.js";
import type { ArtifactFiles } from "../store/artifact-files.js";
import type { Lease } from "../store/lease.js";
import type { RunStore } from "../store/run-store.js";
import type { Start } from "./live-attempt.js";

/**
 * Renders and stores a task's prompt (its text, its dependencies' results, what its last check
 * printed) and records its new attempt on `model`: what its worker starts from.
 */
export function recordStart(
	deps: { readonly store: RunStore; readonly files: ArtifactFiles },
	lease: Lease,
	run: RunRecord,
	task: { readonly index: number; readonly spec: TaskSpec; readonly model: string | undefined },
): Start {
	const { store, files } = deps;
	const { spec, model } = task;
	const runId = lease.runId;
	const runtime = run.options.runtime ?? spec.agent.runtime;
	const shown = spec.dependsOn.slice(0, DEFAULT_PROMPT_LIMITS.listed).map((dep) => {
		const { excerpt, chars } = store.queries.resultExcerpt(runId, dep);
		const artifact = files.display(runId, `tasks/${dep}/result.md`, run.options.cwd);
		return { taskId: dep, excerpt, totalChars: chars, artifact };
	});
	const rendered = renderTaskPrompt(spec.text, shown, DEFAULT_PROMPT_LIMITS, spec.dependsOn.length);
	const evidence = store.queries.evidenceOf(runId, spec.id);
	const prompt = evidence === undefined ? rendered : withCheckEvidence(rendered, evidence);
	const prefix = `tasks/${spec.id}`;
	const promptArtifact = files.write(runId, spec.id, `${prefix}/prompt.md`, "prompt", prompt);
	const attempt = store.startAttempt(lease, spec.id, runtime, model);
	return {
		index: task.index,
		runtime,
		attemptId: attempt.id,
		promptArtifact,
		request: {
			runId,
			taskId: spec.id,
			stepId: spec.stepId,
			role: spec.role,
			attempt: attempt.number,
			attemptId: attempt.id,
			epoch: lease.epoch,
			agent: model ? { ...spec.agent, model } : spec.agent,
			prompt,
			promptFile: files.path(runId, `${prefix}/prompt.md`),
			cwd: run.options.cwd,
			artifactDir: files.path(runId, prefix),
			artifactPrefix: prefix,
		},
	};
}

/**
 * The start of an attempt a dead runner left running elsewhere, to be followed again under
 * `runtime`: its stored prompt and its own record, nothing new recorded.
 */
export async function followedStart(
	files: ArtifactFiles,
	run: RunRecord,
	task: { readonly index: number; readonly spec: TaskSpec; readonly attempt: AttemptRecord; readonly runtime: string },
): Promise<Start> {
	const { spec, attempt } = task;
	const prefix = `tasks/${spec.id}`;
	return {
		index: task.index,
		runtime: task.runtime,
		attemptId: attempt.id,
		promptArtifact: await files.describe(run.id, spec.id, `${prefix}/prompt.md`, "prompt"),
		request: {
			runId: run.id,
			taskId: spec.id,
			stepId: spec.stepId,
			role: spec.role,
			attempt: attempt.number,
			attemptId: attempt.id,
			epoch: attempt.epoch,
			agent: spec.agent,
			prompt: files.read(run.id, `${prefix}/prompt.md`),
			promptFile: files.path(run.id, `${prefix}/prompt.md`),
			cwd: run.options.cwd,
			artifactDir: files.path(run.id, prefix),
			artifactPrefix: prefix,
		},
	};
}
