// Which model provider errors are worth another attempt: overloads, rate limits, server and network trouble.

/**
 * Whether a model provider's error is worth another attempt: overload, rate limits, server errors
 * and network trouble are; authentication, configuration and bad requests are not.
 */
export function isRetryableModelError(message: string): boolean {
	// An HTTP status the CLI puts first (`429: {…body…}`) decides, whatever words its body holds.
	const status = /^\s*(?:HTTP\s+|status\s+)?([1-5]\d\d)\b/i.exec(message)?.[1];
	if (status !== undefined) return isRetryableStatus(Number(status));
	if (/\b(400|401|403|404|422)\b|auth|api key|permission|invalid|not found|unknown model/i.test(message)) return false;
	return /\b(5\d\d|429|529)\b|overload|rate.?limit|high demand|timeout|timed out|ECONNRESET|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|socket hang up|fetch failed|network|connection/i.test(
		message,
	);
}

/** Whether a provider's HTTP status is worth another attempt: rate limits, timeouts and server errors. */
export function isRetryableStatus(status: number): boolean {
	return status === 408 || status === 429 || status >= 500;
}
