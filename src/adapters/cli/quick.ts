// The CLI's fast path: plain read commands and the ask bridge, without the full parser.

import { phaseSince, timed, timingsOn, timingsReport } from "../../core/timings.js";

export { phaseSince };

type Reads = typeof import("./read-commands.js");

/** A plain form: how many positional arguments it takes, and the command it runs. */
interface PlainForm {
	readonly min: number;
	readonly max: number;
	readonly run: (reads: Reads, args: readonly string[], json: { json?: true }) => Promise<number>;
}

/**
 * The read commands agents and scripts call again and again, in their plain forms: positional
 * arguments and `--json`. Each answers as the full CLI would (main.ts defines these commands with
 * the same arguments) without loading its argument parser and the definitions of every command,
 * which take longer than the reading itself.
 */
const PLAIN: ReadonlyMap<string, PlainForm> = new Map(
	Object.entries({
		status: { min: 0, max: 1, run: (reads, [runId], json) => reads.statusCommand(runId, json) },
		runs: { min: 0, max: 0, run: (reads, _, json) => reads.runsCommand(json) },
		events: { min: 1, max: 1, run: (reads, [runId], json) => reads.eventsCommand(runId as string, json) },
		logs: {
			min: 2,
			max: 2,
			run: (reads, [runId, task], json) => reads.logsCommand(runId as string, task as string, json),
		},
		result: { min: 1, max: 2, run: (reads, [runId, task], json) => reads.resultCommand(runId as string, task, json) },
	} satisfies Record<string, PlainForm>),
);

/**
 * The CLI's first step after `--version`: the plain forms above and `crew ask-server <socket>`, run at once. Returns undefined
 * for anything else, a wrong form included, for the full CLI to parse, explain or refuse.
 */
export function quick(argv: readonly string[]): Promise<number> | undefined {
	if (timingsOn()) process.once("exit", () => process.stderr.write(`${timingsReport()}\n`));
	// Started by an agent CLI for each attempt that may ask, so it loads nothing else.
	if (argv.length === 4 && argv[2] === "ask-server") {
		return import("./ask-bridge.js").then(({ askBridge }) => askBridge(argv[3] as string));
	}
	const args = argv.slice(2).filter((arg) => arg !== "--debug");
	const form = PLAIN.get(args[0] ?? "");
	if (!form) return undefined;
	const options = args.slice(1).filter((arg) => arg.startsWith("-"));
	const positional = args.slice(1).filter((arg) => !arg.startsWith("-"));
	if (options.some((option) => option !== "--json")) return undefined;
	if (positional.length < form.min || positional.length > form.max) return undefined;
	const json = options.length > 0 ? { json: true as const } : {};
	const loading = timed("load the read commands", () =>
		Promise.all([import("./outcome.js"), import("./read-commands.js")]),
	);
	return loading.then(([{ outcome }, reads]) => outcome(argv, () => form.run(reads, positional, json)));
}
