// `CrewError` and the stable error codes callers and tests branch on.

/** Stable codes callers and tests branch on; the message names the bad value. */
export const ErrorCode = {
	InvalidId: "INVALID_ID",
	InvalidInput: "INVALID_INPUT",
	InvalidWorkflow: "INVALID_WORKFLOW",
	InvalidResource: "INVALID_RESOURCE",
	NotFound: "NOT_FOUND",
	InvalidTransition: "INVALID_TRANSITION",
	LeaseHeld: "LEASE_HELD",
	LeaseLost: "LEASE_LOST",
	ArtifactPath: "ARTIFACT_PATH",
	Store: "STORE_ERROR",
	Runtime: "RUNTIME_ERROR",
	Conflict: "CONFLICT",
	Untrusted: "UNTRUSTED",
	/** A workflow script's agent call ended without completing. */
	CallFailed: "CALL_FAILED",
	/** A workflow script's replay made other calls than its recorded run. */
	Diverged: "DIVERGED",
	Cancelled: "CANCELLED",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class CrewError extends Error {
	readonly code: ErrorCode;

	constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
		super(message, options);
		this.name = "CrewError";
		this.code = code;
	}
}

export function isCrewError(error: unknown, code?: ErrorCode): error is CrewError {
	return error instanceof CrewError && (code === undefined || error.code === code);
}

export function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
