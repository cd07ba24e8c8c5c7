// `StopReason`: why the engine aborted an attempt, carried as its abort signal's reason.

/** Why the engine aborted an attempt; carried as the AbortSignal's reason. */
export class StopReason extends Error {
	readonly kind: "cancel" | "abort" | "timeout" | "stall" | "unanswered" | "lease-lost" | "shutdown";

	constructor(kind: StopReason["kind"], message: string) {
		super(message);
		this.name = "StopReason";
		this.kind = kind;
	}
}
