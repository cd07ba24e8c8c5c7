// A value made at its first use and kept, for what costs to make and is often unused.

/** `make`'s value, made at the first call and kept: for what costs to make and is often unused. */
export function once<T>(make: () => T): () => T {
	let made: { readonly value: T } | undefined;
	return () => {
		made ??= { value: make() };
		return made.value;
	};
}
