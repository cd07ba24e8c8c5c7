// Tasks' write scopes: whether two overlap, and whether a file falls in one.

/**
 * Whether two tasks' write scopes touch the same files: a scope is a relative path (`.` for the
 * whole repository) and covers everything below it.
 */
export function scopesOverlap(a: readonly string[], b: readonly string[]): boolean {
	return a.some((x) => b.some((y) => covers(x, y) || covers(y, x)));
}

/** Whether a file, by its path relative to the repository, is in one of `scopes`. */
export function inScopes(file: string, scopes: readonly string[]): boolean {
	return scopes.some((scope) => covers(scope, file));
}

function covers(outer: string, inner: string): boolean {
	return outer === "." || inner === outer || inner.startsWith(`${outer}/`);
}
