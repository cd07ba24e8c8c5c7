// A binary min-heap ordered by a caller's `before` comparison.

/** A binary min-heap under `before(a, b)`: true when `a` should come out first. */
export class Heap<T> {
	readonly #items: T[] = [];
	readonly #before: (a: T, b: T) => boolean;

	constructor(before: (a: T, b: T) => boolean) {
		this.#before = before;
	}

	get size(): number {
		return this.#items.length;
	}

	push(item: T): void {
		const items = this.#items;
		items.push(item);
		let i = items.length - 1;
		while (i > 0) {
			const parent = (i - 1) >> 1;
			if (!this.#before(items[i] as T, items[parent] as T)) break;
			[items[i], items[parent]] = [items[parent] as T, items[i] as T];
			i = parent;
		}
	}

	peek(): T | undefined {
		return this.#items[0];
	}

	pop(): T | undefined {
		const items = this.#items;
		const top = items[0];
		const last = items.pop();
		if (items.length > 0 && last !== undefined) {
			items[0] = last;
			let i = 0;
			for (;;) {
				const left = 2 * i + 1;
				const right = left + 1;
				let best = i;
				if (left < items.length && this.#before(items[left] as T, items[best] as T)) best = left;
				if (right < items.length && this.#before(items[right] as T, items[best] as T)) best = right;
				if (best === i) break;
				[items[i], items[best]] = [items[best] as T, items[i] as T];
				i = best;
			}
		}
		return top;
	}
}
