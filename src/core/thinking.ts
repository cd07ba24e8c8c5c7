// Thinking levels: how much an agent's model reasons before it answers.

/**
 * How much an agent's model reasons before it answers: pi's thinking levels, which crew passes to
 * each agent CLI in that CLI's own terms. pi 1.x has `max`; pi 0.73 stops at `xhigh`.
 */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export function isThinkingLevel(value: unknown): value is ThinkingLevel {
	return typeof value === "string" && (THINKING_LEVELS as readonly string[]).includes(value);
}

/** Why `value` is not a thinking level, naming it and the levels there are; undefined when it is one. */
export function thinkingProblem(value: unknown): string | undefined {
	if (isThinkingLevel(value)) return undefined;
	return `thinking ${JSON.stringify(value)}: expected one of ${THINKING_LEVELS.join(", ")}`;
}
