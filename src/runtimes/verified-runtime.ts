// Verification of a task's result after its agent: a stated verdict, or a check command in its workspace.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { redact } from "../core/redact.js";
import { type VerifySpec, verdictOf } from "../core/verdict.js";
import { writeAttemptFile } from "./attempt-files.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "./worker-runtime.js";

/** Characters of a check's output kept in the failure given to the next attempt. */
const EVIDENCE_CHARS = 16_000;

/**
 * A runtime whose successful results must also pass the task's check: a stated verdict, or a
 * command run with `checker` (the command runtime) in the task's workspace after the agent ends,
 * under the same signal, so the attempt's timeouts and cancel cover it. The check's output is
 * kept as the attempt's evidence; a failed command is worth another attempt, which is given that
 * output; a FAIL verdict is not.
 */
export function withVerification(agent: WorkerRuntime, checker: WorkerRuntime, verify: VerifySpec): WorkerRuntime {
	return {
		name: agent.name,
		async run(request: TaskRequest, control: RunControl): Promise<WorkerResult> {
			const result = await agent.run(request, control);
			if (!result.ok) return result;
			if (verify.kind === "verdict") {
				const verdict = verdictOf(result.text);
				if (verdict === "PASS") return result;
				if (verdict) return { ...result, ok: false, error: { message: "the verdict is FAIL", retryable: false } };
				const message = "no verdict: a verification step's result must say PASS or FAIL on a line of its own";
				return { ...result, ok: false, error: { message, retryable: false, missing: true } };
			}
			const { check, artifacts: checked } = await runCheck(checker, verify.command, request, control, result.text);
			const artifacts = [...result.artifacts, ...checked];
			if (check.ok) return { ...result, artifacts };
			const evidence = check.text.length > EVIDENCE_CHARS ? check.text.slice(-EVIDENCE_CHARS) : check.text;
			const message = `the check \`${verify.command}\` failed: ${check.error?.message ?? "it did not pass"}`;
			return { ...result, ok: false, artifacts, error: { message, retryable: true, evidence } };
		},
	};
}

/**
 * Runs a task's check `command` with `checker` (the command runtime) in the task's workspace,
 * under the attempt's signal, `stdin` on its standard input (the agent's answer, for a step's
 * check), keeping its output (redacted) as the attempt's evidence file. It may write where the
 * task may, whatever its agent may: a check builds and tests.
 */
export async function runCheck(
	checker: WorkerRuntime,
	command: string,
	request: TaskRequest,
	control: RunControl,
	stdin: string,
): Promise<{ check: WorkerResult; artifacts: WorkerResult["artifacts"] }> {
	const check = await checker.run(
		{
			...request,
			agent: { name: `${request.agent.name} check`, runtime: "command", command: `${command} 2>&1`, systemPrompt: "" },
			prompt: stdin,
			artifactDir: join(request.artifactDir, "check"),
			artifactPrefix: `${request.artifactPrefix}/check`,
		},
		control,
	);
	const name = `check/attempt-${request.attempt}.output.txt`;
	mkdirSync(join(request.artifactDir, "check"), { recursive: true });
	writeAttemptFile(join(request.artifactDir, name), redact(check.text));
	return { check, artifacts: [...check.artifacts, { name: `${request.artifactPrefix}/${name}`, kind: "evidence" }] };
}
