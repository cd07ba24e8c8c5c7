/**
 * Whether two tasks' write scopes touch the same files: a scope is a relative path (`.` for the
 * whole repository) and covers everything below it.
 */
export function scopesOverlap(a: readonly string[], b: readonly string[]): boolean {
	const covers = (outer: string, inner: string) => outer === "." || inner === outer || inner.startsWith(`${outer}/`);
	return a.some((x) => b.some((y) => covers(x, y) || covers(y, x)));
}
