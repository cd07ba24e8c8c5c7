/** mulberry32: a small seeded generator of numbers in [0, 1), so a random shape or run can be made again from its seed. */
export function prng(seed: number): () => number;
