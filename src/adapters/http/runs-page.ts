// GET /api/runs: a page of the runs, filtered, counted and summed in the store, as the runs page asks.

import { z } from "zod";
import { RunStatus } from "../../core/status.js";
import { listedRun } from "../../engine/views/json.js";
import type { RepoReader } from "../../engine/views/repo-reader.js";
import { MOST_RUNS_LISTED } from "../../store/run-pages.js";
import { parse } from "./input.js";

const count = (least: number) =>
	z
		.string()
		.regex(/^\d{1,7}$/, `expected an integer >= ${least}`)
		.transform(Number)
		.refine((n) => n >= least, `expected an integer >= ${least}`);

const RunsQuery = z.object({
	limit: count(1)
		.refine((n) => n <= MOST_RUNS_LISTED, `expected at most ${MOST_RUNS_LISTED}`)
		.optional(),
	offset: count(0).optional(),
	status: z.enum(Object.values(RunStatus) as [string, ...string[]]).optional(),
	q: z.string().min(1).max(200, "expected at most 200 characters").optional(),
	workflow: z.string().min(1).optional(),
	team: z.string().min(1).optional(),
});

/**
 * `{runs, total, offset, choices}`: the runs matching `query`'s filters, newest first, from
 * `offset`, each as `crew runs --json` lists it with its tasks by outcome and what it spent;
 * `total`, how many match in all; `choices`, the workflows and teams the store's runs name.
 */
export function runsPage(reader: RepoReader | undefined, query: Record<string, string>): object {
	const { limit = MOST_RUNS_LISTED, offset = 0, ...filters } = parse(RunsQuery, query, "query parameter");
	if (!reader) return { runs: [], total: 0, offset, choices: { workflows: [], teams: [] } };
	const page = reader.runPage({ ...filters, limit, offset });
	return { runs: page.runs.map(listedRun), total: page.total, offset, choices: reader.runChoices() };
}
