// The JSON value an agent's answer ends with: its last json fence, the whole answer, or its outer brackets.

/**
 * The JSON value an agent's answer ends with: the last ```json fence, else the whole answer, else
 * the span from its first `{` or `[` to its last `}` or `]`.
 */
export function answerJson(text: string): { value: unknown } | { problem: string } {
	const fences = [...text.matchAll(/```json\s*\n([\s\S]*?)```/g)];
	const candidates = [fences.at(-1)?.[1], text.trim()];
	const start = text.search(/[[{]/);
	const end = Math.max(text.lastIndexOf("}"), text.lastIndexOf("]"));
	if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1));
	for (const candidate of candidates) {
		if (candidate === undefined || candidate.trim() === "") continue;
		try {
			return { value: JSON.parse(candidate) };
		} catch {
			// Not this candidate; the next one may be.
		}
	}
	return { problem: "the answer holds no JSON value: end it with one in a ```json fence" };
}
