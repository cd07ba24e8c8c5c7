// Which of a run's tasks, and which of their fields, `crew status --json` gives.

import { TaskStatus } from "./status.js";

/** The fields of each task of `crew status --json`, in the order it gives them. */
export const TASK_JSON_FIELDS = [
	"id",
	"stepId",
	"role",
	"status",
	"attempts",
	"startedAt",
	"finishedAt",
	"error",
	"usage",
	"sandbox",
	"inherited",
	"session",
	"setAside",
] as const;
export type TaskJsonField = (typeof TASK_JSON_FIELDS)[number];

/** Every task status, as `--tasks` and `crew_status` accept them. */
export const TASK_STATUSES: readonly TaskStatus[] = Object.values(TaskStatus);

/**
 * Which part of a run's tasks `crew status --json` gives: only tasks in `tasks` (their statuses as
 * people see them, a running task of a gone runner being interrupted), and of each only `fields`.
 * Either left out means all.
 */
export interface StatusSelection {
	readonly tasks?: readonly TaskStatus[];
	readonly fields?: readonly TaskJsonField[];
}
