// Run tracing: whether `OTEL_*` variables ask for traces, and runs' spans exported as their events commit.

import { errorMessage } from "../../core/errors.js";
import type { EventRecord } from "../../core/records.js";
import type { CrewOptions } from "../../engine/options.js";
import { openReader } from "../../store/database.js";
import { RunQueries } from "../../store/run-queries.js";
import { version } from "../cli/version.js";
import { RunSpans, type SpanPlan } from "./run-spans.js";
import type { SpanExport } from "./span-export.js";

/** The one protocol crew exports traces in. */
const PROTOCOL = "http/protobuf";

/**
 * Whether this process's standard `OTEL_*` variables ask for traces, which crew exports over OTLP
 * only: an endpoint must be set, for traces or for all signals; `OTEL_SDK_DISABLED=true` and an
 * `OTEL_TRACES_EXPORTER` without `otlp` turn them off. `refused` says why variables that ask for
 * traces cannot have them.
 */
export function tracesAsked(
	env: NodeJS.ProcessEnv,
): { readonly endpoint: string } | { readonly refused: string } | undefined {
	if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
	const exporters = (env.OTEL_TRACES_EXPORTER ?? "otlp").split(",").map((e) => e.trim().toLowerCase());
	if (!exporters.includes("otlp")) {
		const others = exporters.filter((e) => e !== "none" && e !== "");
		return others.length > 0
			? { refused: `OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}: crew exports traces over otlp only` }
			: undefined;
	}
	const [name, endpoint] = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
		? ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT]
		: ["OTEL_EXPORTER_OTLP_ENDPOINT", env.OTEL_EXPORTER_OTLP_ENDPOINT];
	if (!endpoint) return undefined;
	if (!/^https?:\/\/[^/\s]+/i.test(endpoint) || !URL.canParse(endpoint))
		return { refused: `${name}=${endpoint}: expected an http:// or https:// URL` };
	const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
	if (protocol !== undefined && protocol.trim() !== PROTOCOL)
		return { refused: `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: crew exports traces as ${PROTOCOL} only` };
	return { endpoint };
}

/**
 * Exports the spans of the runs whose events it hears (see `RunSpans`), read from the store at
 * `dbFile` after each event commits, never holding up the runner. The OpenTelemetry SDK is loaded
 * at the first span. Export failures are told once, through `warn`; the run goes on.
 */
export class RunTracing {
	readonly #dbFile: string;
	readonly #endpoint: string;
	readonly #warn: (message: string) => void;
	#spans: RunSpans | undefined;
	#export: Promise<SpanExport> | undefined;
	#warned = false;

	constructor(dbFile: string, endpoint: string, warn: (message: string) => void) {
		this.#dbFile = dbFile;
		this.#endpoint = endpoint;
		this.#warn = warn;
	}

	readonly heard = (runId: string, event: EventRecord): void => {
		setImmediate(() => {
			let spans: SpanPlan[];
			try {
				spans = this.#runSpans().ended(runId, event);
			} catch (error) {
				// The run goes on untraced for this event: a trace is worth less than the run.
				this.#failed(`cannot read run ${runId} for its spans: ${errorMessage(error)}`);
				return;
			}
			if (spans.length === 0) return;
			this.#export ??= import("./span-export.js").then(
				({ SpanExport }) =>
					new SpanExport({
						version: version(),
						onError: (message) => this.#failed(`cannot export spans to ${this.#endpoint}: ${message}`),
					}),
			);
			this.#export.then(
				(exporter) => exporter.export(spans),
				(error: unknown) => this.#failed(`cannot load the OpenTelemetry SDK: ${errorMessage(error)}`),
			);
		});
	};

	#runSpans(): RunSpans {
		if (!this.#spans) {
			const db = openReader(this.#dbFile);
			if (!db) throw new Error(`no store at ${this.#dbFile}`);
			this.#spans = new RunSpans(new RunQueries(db));
		}
		return this.#spans;
	}

	#failed(message: string): void {
		if (this.#warned) return;
		this.#warned = true;
		this.#warn(`traces are not all exported: ${message}`);
	}
}

/**
 * A `RunTracing` for the store at `dbFile` when this process's `OTEL_*` variables ask for traces;
 * variables that ask for what crew cannot export are warned of, and nothing is exported.
 */
export function runTracing(dbFile: string, warn: (message: string) => void): RunTracing | undefined {
	const asked = tracesAsked(process.env);
	if (!asked) return undefined;
	if ("refused" in asked) {
		warn(`${asked.refused}: traces are not exported`);
		return undefined;
	}
	return new RunTracing(dbFile, asked.endpoint, warn);
}

/** `options` with `tracing`, if any: it hears every event the Crew writes, and attempts get their span as `TRACEPARENT`. */
export function withTracing(options: CrewOptions, tracing: RunTracing | undefined): CrewOptions {
	if (!tracing) return options;
	const { onEvent } = options;
	return {
		...options,
		traced: true,
		onEvent: onEvent
			? (runId, event) => {
					onEvent(runId, event);
					tracing.heard(runId, event);
				}
			: tracing.heard,
	};
}
