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
export interface TierOutcome {
	readonly name: string;
	readonly code: number;
	readonly failures?: readonly { readonly file: string; readonly test: string; readonly error: string }[];
	/** The last lines of a tier's output, for a tier that reports no failures of its own. */
	readonly tail?: readonly string[];
}
export function failed(tiers: readonly TierOutcome[]): string[];
