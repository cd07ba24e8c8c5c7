// The smoke check of `crew doctor --smoke`: one small real model call through an agent CLI.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorMessage } from "../../core/errors.js";
import type { Check, RuntimeUse } from "../../runtimes/agent/cli-readiness.js";
import type { TaskRequest, WorkerRuntime } from "../../runtimes/worker-runtime.js";

/** What the smoke call asks: a one-word answer, no tools. */
const SMOKE_PROMPT = "Reply with OK and nothing else.";

/** Longest a smoke call may take, in ms. */
const SMOKE_TIMEOUT_MS = 120_000;

/**
 * One small real call through `runtime`, as a task of its own in a temporary folder: the first
 * model the agents name (else the CLI's default), no tools, read-only. Its folder is kept when the
 * call fails, so the error's log path can be read.
 */
export async function smokeCheck(runtime: WorkerRuntime, use: RuntimeUse): Promise<Check> {
	const name = `${use.runtime} smoke`;
	const model = [...use.models.keys()].find((m) => m !== undefined);
	const dir = mkdtempSync(join(tmpdir(), "crew-smoke-"));
	const promptFile = join(dir, "prompt.md");
	writeFileSync(promptFile, SMOKE_PROMPT);
	const request: TaskRequest = {
		runId: "doctor-smoke",
		taskId: "smoke",
		stepId: "smoke",
		role: "smoke",
		attempt: 1,
		attemptId: 0,
		epoch: 0,
		agent: {
			name: "doctor-smoke",
			runtime: use.runtime,
			...(model ? { model } : {}),
			tools: [],
			permissions: "read-only",
			systemPrompt: "",
		},
		prompt: SMOKE_PROMPT,
		promptFile,
		cwd: dir,
		artifactDir: join(dir, "attempt"),
		artifactPrefix: "attempt",
	};
	const started = Date.now();
	try {
		const result = await runtime.run(request, {
			signal: AbortSignal.timeout(SMOKE_TIMEOUT_MS),
			onEvent: () => undefined,
		});
		if (!result.ok) return { name, ok: false, detail: result.error?.message ?? "failed" };
		rmSync(dir, { recursive: true, force: true });
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		const answer = result.text.trim().slice(0, 80);
		const tokens = `${result.usage.input} tokens in, ${result.usage.output} out`;
		return {
			name,
			ok: true,
			detail: `answered "${answer}" with ${model ?? "its default model"} in ${seconds}s, ${tokens}`,
		};
	} catch (error) {
		return { name, ok: false, detail: `no answer within ${SMOKE_TIMEOUT_MS / 1000}s: ${errorMessage(error)}` };
	}
}
