// Edit distance between names, for typos and "did you mean" hints.

/**
 * Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`, ignoring case:
 * the optimal string alignment form of Damerau-Levenshtein distance.
 */
export function editDistance(a: string, b: string): number {
	const x = a.toLowerCase();
	const y = b.toLowerCase();
	const rows: number[][] = [];
	for (let i = 0; i <= x.length; i++) {
		const row: number[] = [i];
		for (let j = 1; j <= y.length; j++) {
			if (i === 0) {
				row.push(j);
				continue;
			}
			const above = rows[i - 1] as number[];
			const cost = x[i - 1] === y[j - 1] ? 0 : 1;
			let best = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost);
			if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) {
				best = Math.min(best, ((rows[i - 2] as number[])[j - 2] ?? 0) + 1);
			}
			row.push(best);
		}
		rows.push(row);
	}
	return (rows[x.length] as number[])[y.length] ?? 0;
}

/** The known key one edit from `key` (a typo of it), if there is exactly one nearest. */
export function typoOf(key: string, known: Iterable<string>): string | undefined {
	return nearest(key, known, 1);
}

/**
 * The candidate nearest to `name` within a small distance (1 for names up to 4 characters, else
 * 2), for a "did you mean" hint; undefined when none is that near.
 */
export function nearest(
	name: string,
	candidates: Iterable<string>,
	most = name.length <= 4 ? 1 : 2,
): string | undefined {
	let best: string | undefined;
	let bestDistance = most + 1;
	for (const candidate of candidates) {
		if (candidate === name) continue;
		const d = editDistance(name, candidate);
		if (d < bestDistance) {
			best = candidate;
			bestDistance = d;
		}
	}
	return best;
}

/** `; did you mean \`x\`?` for the nearest candidate, or "" when none is near. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
	const near = nearest(name, candidates);
	return near === undefined ? "" : `; did you mean \`${near}\`?`;
}
