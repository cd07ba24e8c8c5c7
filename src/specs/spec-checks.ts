// A strict step's spec checks, run after its agent: confined, offline, without credentials, digests only.

import { createHash } from "node:crypto";
import { join } from "node:path";
import { type FrozenAcceptance, SPEC_CHECK_FAILURE, type SpecCheck, type TaskSpecs } from "../core/spec-contract.js";
import { NO_SANDBOX } from "../runtimes/sandbox/confine.js";
import { cacheVariableNames } from "../runtimes/toolchains/caches.js";
import type { RunControl, TaskRequest, WorkerEvent, WorkerResult, WorkerRuntime } from "../runtimes/worker-runtime.js";

/** How long one check may run, in wall time and in CPU time; past them it is stopped and fails. */
export const SPEC_CHECK_WALL_MS = 60_000;
export const SPEC_CHECK_CPU_SECONDS = 30;

/**
 * The variables of the runner's environment a check's processes inherit, its sandbox's own among
 * them (see `RuntimeRegistry.commandsKeeping`): none that could hold a credential. Inside, the
 * check keeps these of the sandbox's environment, crew's toolchain caches among them.
 */
export const SPEC_CHECK_VARIABLES: readonly string[] = ["PATH", "HOME", "USER", "LOGNAME", "LANG"];
const KEPT_VARIABLES = [...SPEC_CHECK_VARIABLES, "TMPDIR", ...cacheVariableNames()];

/** How the reason of a check that could not run here begins: no retry makes it run. */
const CANNOT = "it cannot";

/** The variables a check is given, so that its output is the same from run to run. */
const PLAIN_OUTPUT = ["TZ=UTC", "TERM=dumb", "NO_COLOR=1", "FORCE_COLOR=0", "CI=1"];

/**
 * `agent`, whose successful results must also pass the checks of the strict specs it is held to:
 * each must's command, when its spec is trusted (the user imported it, unchanged since) and the
 * command is idempotent, run again with `checker` (the command runtime) at the task's workspace,
 * in crew's sandbox at its strict level whatever the run's (no network, secrets and crew's state
 * hidden, the workspace read-only), with an environment of `KEPT_VARIABLES` only (`checker` must
 * keep no more: see `SPEC_CHECK_VARIABLES`), a CPU and a wall-time limit, and its
 * standard error discarded. Only its exit code and the digest of its standard output are kept. A
 * check that exits otherwise than expected fails the attempt, naming the acceptance, worth another
 * attempt that is told which, as is one killed or past its time; one that cannot run here (it
 * cannot be confined) fails it for good. `checker` undefined: the attempt ran where its workspace
 * is out of reach, so every check that would run fails.
 */
export function withSpecChecks(
	agent: WorkerRuntime,
	checker: WorkerRuntime | undefined,
	specs: TaskSpecs,
): WorkerRuntime {
	return {
		name: agent.name,
		async run(request: TaskRequest, control: RunControl): Promise<WorkerResult> {
			const result = await agent.run(request, control);
			if (!result.ok) return result;
			const checks: SpecCheck[] = [];
			for (const spec of specs.snapshots) {
				for (const { requirement, acceptance } of spec.items) {
					if (requirement.priority !== "must") continue;
					const ids = { specId: spec.specId, acceptanceId: acceptance.id, requirementId: requirement.id };
					const skipped = !spec.trusted
						? "its spec is not one the user imported (crew spec import), or it changed since: coverage only"
						: unrunnable(acceptance);
					if (skipped) checks.push({ ...ids, outcome: "not-run", reason: skipped });
					else checks.push({ ...ids, ...(await check(checker, acceptance, request, control)) });
				}
			}
			const failed = checks.filter((c) => c.outcome === "failed");
			if (failed.length === 0) return { ...result, specChecks: checks };
			const named = failed.map((c) => `${c.acceptanceId} of spec ${c.specId}: ${c.reason}`);
			const message = `${SPEC_CHECK_FAILURE}${failed.length > 1 ? "s" : ""} failed: ${named.join("; ")}`;
			const evidence = failedEvidence(failed, specs);
			// A check that cannot run here never will; one the agent's code hung or failed may pass next time.
			const retryable = !failed.some((c) => c.reason?.startsWith(CANNOT));
			return { ...result, ok: false, specChecks: checks, error: { message, retryable, evidence } };
		},
	};
}

/** Why a trusted must's check is not run: no command, or not idempotent; undefined when it is run. */
function unrunnable(acceptance: FrozenAcceptance): string | undefined {
	if (acceptance.command === undefined) return "it has no command: coverage only";
	if (acceptance.idempotent !== true) return "its command is not marked idempotent: coverage only";
	return undefined;
}

/** One check's outcome: met or failed, with its exit code and digest when it ran to an exit. */
async function check(
	checker: WorkerRuntime | undefined,
	acceptance: FrozenAcceptance,
	request: TaskRequest,
	control: RunControl,
): Promise<Omit<SpecCheck, "specId" | "acceptanceId" | "requirementId">> {
	if (!checker)
		return { outcome: "failed", exitCode: null, reason: `${CANNOT} run: the attempt ran on a remote worker` };
	if (!request.sandbox)
		return { outcome: "failed", exitCode: null, reason: `${CANNOT} be confined: the run records no sandbox` };
	const timeout = AbortSignal.timeout(SPEC_CHECK_WALL_MS);
	const signal = AbortSignal.any([control.signal, timeout]);
	const folder = `spec-check/${acceptance.id}`;
	let ran: WorkerResult;
	try {
		ran = await checker.run(
			{
				...request,
				agent: {
					name: `${request.agent.name} spec check`,
					runtime: "command",
					command: confined(acceptance),
					systemPrompt: "",
				},
				prompt: "",
				artifactDir: join(request.artifactDir, folder),
				artifactPrefix: `${request.artifactPrefix}/${folder}`,
				// A check looks at the work; what it would leave is not the task's to keep.
				sandbox: { ...request.sandbox, level: "strict", readOnly: true, hosts: [] },
			},
			{ signal, onEvent: (event) => (keptEvent(event) ? control.onEvent(event) : undefined) },
		);
	} catch (error) {
		if (control.signal.aborted || !timeout.aborted) throw error;
		return { outcome: "failed", exitCode: null, reason: `it ran past ${SPEC_CHECK_WALL_MS / 1000} s and was stopped` };
	}
	const { exitCode } = ran;
	if (exitCode === null || (!ran.ok && exitCode === 0))
		return { outcome: "failed", exitCode: null, reason: notRun(ran.error?.message) };
	const digest = createHash("sha256").update(ran.text).digest("hex");
	const expectedCode = acceptance.expectedExitCode ?? 0;
	if (exitCode !== expectedCode)
		return { outcome: "failed", exitCode, digest, reason: `it exited ${exitCode}, not ${expectedCode}` };
	if (acceptance.expectedDigest !== undefined && digest !== acceptance.expectedDigest)
		return { outcome: "failed", exitCode, digest, reason: "its output's digest is not the one expected" };
	return { outcome: "met", exitCode, digest };
}

/**
 * The shell line that runs `acceptance`'s command under a CPU limit, with the environment
 * scrubbed to `KEPT_VARIABLES` and its standard error discarded.
 */
function confined(acceptance: FrozenAcceptance): string {
	const kept = KEPT_VARIABLES.map((name) => `${name}="\${${name}-}"`).join(" ");
	const command = `'${(acceptance.command as string).replaceAll("'", `'\\''`)}'`;
	return `ulimit -t ${SPEC_CHECK_CPU_SECONDS}; exec env -i ${kept} ${PLAIN_OUTPUT.join(" ")} /bin/sh -c ${command} 2>/dev/null`;
}

/** Why a check did not run to an exit, without what it printed: a failure's message may end with its output. */
function notRun(message = "no reason was given"): string {
	const killed = /^killed by (\S+?):?(?:\s|$)/.exec(message);
	if (killed) return `it was killed by ${killed[1]}`;
	if (message.includes(NO_SANDBOX))
		return `${CANNOT} be confined, and a spec's check never runs unconfined: ${NO_SANDBOX}`;
	return `it did not run: ${message}`;
}

/** What of a check's events reach the attempt's record: its process and the sandbox's refusals, never its output. */
function keptEvent(event: WorkerEvent): boolean {
	return event.type === "spawned" || event.type === "activity" || event.type === "sandbox-denied";
}

/** What the next attempt is told of the checks that failed: which, what each checks, and how it failed. */
function failedEvidence(failed: readonly SpecCheck[], specs: TaskSpecs): string {
	const lines = ["These checks of your task's specs were run after you finished, and failed:"];
	for (const c of failed) {
		const item = specs.snapshots
			.find((s) => s.specId === c.specId)
			?.items.find((i) => i.acceptance.id === c.acceptanceId);
		lines.push(`- ${c.acceptanceId} (${c.requirementId}: ${item?.acceptance.check ?? ""}): ${c.reason}`);
	}
	return lines.join("\n");
}
