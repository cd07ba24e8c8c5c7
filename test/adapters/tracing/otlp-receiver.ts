import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

/** One span as an OTLP receiver decodes it: ids in hex, times in ns as decimal strings. */
export interface ReceivedSpan {
	readonly traceId: string;
	readonly spanId: string;
	/** Empty for a root span. */
	readonly parentSpanId: string;
	readonly name: string;
	/** OTLP's numbering: 1 internal, 3 client. */
	readonly kind: number;
	readonly startNs: bigint;
	readonly endNs: bigint;
	readonly attributes: Readonly<Record<string, string | number | boolean>>;
	/** OTLP's numbering: 0 unset, 2 error. */
	readonly status: { readonly code: number; readonly message: string };
	/** The resource's attributes the span came with. */
	readonly resource: Readonly<Record<string, string | number | boolean>>;
}

interface AnyValue {
	stringValue?: string | null;
	intValue?: unknown;
	doubleValue?: number | null;
	boolValue?: boolean | null;
}
interface KeyValue {
	key: string;
	value?: AnyValue;
}
interface DecodedSpan {
	traceId: Uint8Array;
	spanId: Uint8Array;
	parentSpanId?: Uint8Array;
	name: string;
	kind: number;
	startTimeUnixNano: unknown;
	endTimeUnixNano: unknown;
	attributes: KeyValue[];
	status?: { code?: number; message?: string };
}
interface DecodedRequest {
	resourceSpans: { resource?: { attributes: KeyValue[] }; scopeSpans: { spans: DecodedSpan[] }[] }[];
}

/**
 * The official OTLP protobuf definitions, as the OpenTelemetry JS project generated them
 * (`@opentelemetry/otlp-transformer` 0.216, the last to ship them).
 */
const proto = createRequire(import.meta.url)("otlp-proto-0216/build/src/generated/root.js") as {
	opentelemetry: {
		proto: {
			collector: { trace: { v1: { ExportTraceServiceRequest: { decode(bytes: Uint8Array): DecodedRequest } } } };
		};
	};
};

function hex(bytes: Uint8Array | undefined): string {
	return bytes ? Buffer.from(bytes).toString("hex") : "";
}

/** An attribute's value; a decoded field that is not set reads as null or undefined. */
function plain(value: AnyValue | undefined): string | number | boolean {
	if (value?.stringValue != null) return value.stringValue;
	if (value?.boolValue != null) return value.boolValue;
	if (value?.doubleValue != null) return value.doubleValue;
	if (value?.intValue != null) return Number(String(value.intValue));
	throw new Error(`an attribute value of a kind the test does not read: ${JSON.stringify(value)}`);
}

function attributesOf(list: readonly KeyValue[]): Record<string, string | number | boolean> {
	return Object.fromEntries(list.map((kv) => [kv.key, plain(kv.value)]));
}

/** A trace receiver on 127.0.0.1 speaking OTLP over HTTP with protobuf bodies, as a Collector does. */
export class OtlpReceiver {
	readonly spans: ReceivedSpan[] = [];
	/** Requests that reached `/v1/traces`, each with its content type. */
	readonly requests: { readonly path: string; readonly contentType: string }[] = [];
	readonly #server: Server;

	private constructor(server: Server) {
		this.#server = server;
	}

	static async start(): Promise<OtlpReceiver> {
		const server = createServer();
		const receiver = new OtlpReceiver(server);
		server.on("request", (req, res) => {
			const chunks: Buffer[] = [];
			req.on("data", (chunk: Buffer) => chunks.push(chunk));
			req.on("end", () => {
				receiver.requests.push({ path: req.url ?? "", contentType: req.headers["content-type"] ?? "" });
				if (req.method !== "POST" || req.url !== "/v1/traces") {
					res.writeHead(404).end();
					return;
				}
				receiver.#take(
					proto.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.decode(Buffer.concat(chunks)),
				);
				// An empty ExportTraceServiceResponse: everything accepted.
				res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
			});
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		return receiver;
	}

	get url(): string {
		return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
	}

	#take(request: DecodedRequest): void {
		for (const resourceSpans of request.resourceSpans) {
			const resource = attributesOf(resourceSpans.resource?.attributes ?? []);
			for (const scope of resourceSpans.scopeSpans)
				for (const s of scope.spans)
					this.spans.push({
						traceId: hex(s.traceId),
						spanId: hex(s.spanId),
						parentSpanId: hex(s.parentSpanId),
						name: s.name,
						kind: s.kind,
						startNs: BigInt(String(s.startTimeUnixNano)),
						endNs: BigInt(String(s.endTimeUnixNano)),
						attributes: attributesOf(s.attributes),
						status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
						resource,
					});
		}
	}

	close(): Promise<void> {
		this.#server.closeAllConnections();
		return new Promise((resolve) => this.#server.close(() => resolve()));
	}
}
