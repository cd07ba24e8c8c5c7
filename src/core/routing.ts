// Routing hints of resources, and how well a goal matches them by plain word matching.

/** A resource's routing hints, as pi-crew writes them. */
export interface RoutingHints {
	readonly triggers: readonly string[];
	readonly useWhen: string;
	readonly avoidWhen: string;
}

export interface HintMatch {
	readonly score: number;
	/** Trigger words the goal contains. */
	readonly triggers: readonly string[];
	/** Words the goal shares with `useWhen`. */
	readonly useWhen: readonly string[];
	/** Words the goal shares with `avoidWhen`. */
	readonly avoidWhen: readonly string[];
}

/** Words too common to say anything about a goal. */
const STOPWORDS: ReadonlySet<string> = new Set(
	"a an and are be by for from has have in is it its of on or that the this to with without not no needs need".split(
		" ",
	),
);

function words(text: string): string[] {
	return (text.toLowerCase().match(/[a-z0-9][a-z0-9-]*/g) ?? []).filter((w) => !STOPWORDS.has(w));
}

/**
 * How well a goal fits a resource's hints: a trigger word in the goal counts 3, a word shared
 * with `useWhen` 1, a word shared with `avoidWhen` −3. Plain word matching: it explains itself.
 */
export function matchHints(goal: string, hints: RoutingHints): HintMatch {
	const goalWords = new Set(words(goal));
	const stem = (w: string) => w.replace(/(ing|ed|es|s)$/, "");
	const goalStems = new Set([...goalWords].map(stem));
	const has = (w: string) => goalWords.has(w) || goalStems.has(stem(w));
	const triggers = hints.triggers.filter((t) => words(t).length > 0 && words(t).every(has));
	const useWhen = [...new Set(words(hints.useWhen).filter(has))];
	const avoidWhen = [...new Set(words(hints.avoidWhen).filter(has))];
	return { score: 3 * triggers.length + useWhen.length - 3 * avoidWhen.length, triggers, useWhen, avoidWhen };
}
