// Export of crew's spans over OTLP with the OpenTelemetry SDK, as the `OTEL_*` variables direct.

import { type Context, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
	type IdGenerator,
	type ReadableSpan,
	type Span,
	type SpanExporter,
	type SpanProcessor,
	TracerProvider,
} from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { SpanPlan } from "./run-spans.js";

/** The export's own time limit when the `OTEL_*` variables set none, in ms: a run's end waits no longer for a collector that does not answer. */
const EXPORT_TIMEOUT_MS = 5000;

/** Ids the next span is to have: spans are made from records whose ids are already decided. */
class PlannedIds implements IdGenerator {
	traceId = "";
	spanId = "";

	generateTraceId(): string {
		return this.traceId;
	}

	generateSpanId(): string {
		return this.spanId;
	}
}

/** Keeps the spans that end until they are taken, to be exported together. */
class Gathered implements SpanProcessor {
	#spans: ReadableSpan[] = [];

	onStart(_span: Span, _parent: Context): void {}

	onEnd(span: ReadableSpan): void {
		this.#spans.push(span);
	}

	take(): ReadableSpan[] {
		const spans = this.#spans;
		this.#spans = [];
		return spans;
	}

	async forceFlush(): Promise<void> {}

	async shutdown(): Promise<void> {}
}

export interface SpanExportOptions {
	/** crew's version, as the spans' `service.version`. */
	readonly version: string;
	/** Hears why an export failed; the spans of that export are dropped. */
	readonly onError: (message: string) => void;
}

/**
 * Exports spans crew's records describe with the OpenTelemetry SDK, over OTLP (HTTP, protobuf),
 * where and as this process's standard `OTEL_EXPORTER_OTLP_*` variables say; `OTEL_SERVICE_NAME`
 * and `OTEL_RESOURCE_ATTRIBUTES` add to what the spans' resource says. A request on its way keeps the
 * process alive until it is answered or times out.
 */
export class SpanExport {
	readonly #ids = new PlannedIds();
	readonly #gathered = new Gathered();
	readonly #provider: TracerProvider;
	readonly #exporter: SpanExporter;
	readonly #onError: (message: string) => void;
	/** The request on its way, if any. */
	#sending: Promise<void> | undefined;

	constructor(options: SpanExportOptions) {
		const { env } = process;
		const timed = env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT;
		this.#exporter = new OTLPTraceExporter(timed ? {} : { timeoutMillis: EXPORT_TIMEOUT_MS });
		const resource = resourceFromAttributes({
			[ATTR_SERVICE_NAME]: "crew",
			[ATTR_SERVICE_VERSION]: options.version,
		}).merge(detectResources({ detectors: [envDetector] }));
		this.#provider = new TracerProvider({ resource, idGenerator: this.#ids, spanProcessors: [this.#gathered] });
		this.#onError = options.onError;
	}

	/** Sends `spans`, without waiting for an answer. */
	export(spans: readonly SpanPlan[]): void {
		if (spans.length === 0) return;
		const tracer = this.#provider.getTracer("crew", undefined);
		for (const plan of spans) {
			this.#ids.traceId = plan.traceId;
			this.#ids.spanId = plan.spanId;
			const parent = plan.parentId
				? trace.setSpanContext(ROOT_CONTEXT, {
						traceId: plan.traceId,
						spanId: plan.parentId,
						traceFlags: TraceFlags.SAMPLED,
						isRemote: true,
					})
				: ROOT_CONTEXT;
			const kind = plan.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL;
			const span = tracer.startSpan(
				plan.name,
				{ kind, startTime: new Date(plan.start), attributes: plan.attributes },
				parent,
			);
			if (plan.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: plan.error });
			span.end(new Date(plan.end));
		}
		if (!this.#sending) this.#send();
	}

	/**
	 * Sends the spans made so far in one request, and those made while it is on its way in the next:
	 * one request at a time, however fast spans come.
	 */
	#send(): void {
		const spans = this.#gathered.take();
		if (spans.length === 0) {
			this.#sending = undefined;
			return;
		}
		this.#sending = new Promise<void>((resolve) => {
			this.#exporter.export(spans, (result) => {
				if (result.error) this.#onError(result.error.message);
				else if (result.code !== ExportResultCode.SUCCESS) this.#onError("the collector refused the spans");
				resolve();
			});
		}).then(() => this.#send());
	}
}
