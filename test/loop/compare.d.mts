// The types of compare.mjs, which test/loop/tiers.mjs runs as it is.

export interface TierFigures {
	readonly name: string;
	readonly wall: number;
	readonly cpu: number;
	/** How busy the machine's CPUs were during the tier, in percent. */
	readonly busy?: number;
	readonly files?: Readonly<Record<string, number>>;
}
export interface Baseline {
	readonly commit: string;
	readonly date: string;
	readonly tiers?: Readonly<Record<string, Omit<TierFigures, "name">>>;
}
export function slowest(tiers: readonly TierFigures[], reasonOf: (file: string) => string | undefined): string;
export function compare(
	tiers: readonly TierFigures[],
	baseline: Baseline | undefined,
	reasonOf: (file: string) => string | undefined,
	partial?: boolean,
): string[];
