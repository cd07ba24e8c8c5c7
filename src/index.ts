// The public API of the `crew` package: the engine, runtimes, records and types a program imports.

export { findProject, type Project, projectAt } from "./config/project.js";
export { buildDag, type Dag, type DagInput } from "./core/dag.js";
export { formatDuration, parseDuration } from "./core/duration.js";
export { CrewError, ErrorCode, isCrewError } from "./core/errors.js";
export { checkId, ID_PATTERN } from "./core/ids.js";
export type { AttemptRecord, EventRecord, RunRecord, TaskRecord } from "./core/records.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./core/retry-policy.js";
export { RunStatus, TaskStatus } from "./core/status.js";
export { type AgentSpec, FailurePolicy, type RunOptions, type TaskSpec } from "./core/types.js";
export { type Usage, ZERO_USAGE } from "./core/usage.js";
export { Crew } from "./engine/crew.js";
export type { CrewOptions, EngineOptions, ExecuteOptions } from "./engine/options.js";
export type { Plan, PlanInput } from "./engine/planning/plan-input.js";
export { RunReader } from "./engine/views/reader.js";
export { presentRun } from "./engine/views/run-view.js";
export { CommandRuntime, type CommandRuntimeOptions, RETRYABLE_EXIT_CODE } from "./runtimes/command-runtime.js";
export { DryRunRuntime } from "./runtimes/dry-run-runtime.js";
export { RuntimeRegistry } from "./runtimes/runtime-registry.js";
export type {
	RunControl,
	TaskRequest,
	WorkerEvent,
	WorkerFailure,
	WorkerResult,
	WorkerRuntime,
} from "./runtimes/worker-runtime.js";
export type { RunSnapshot } from "./store/run-queries.js";
