// What test/loop/tiers.mjs prints of a run's figures: each tier's slowest files, and where it grew.

/** A tier grown by this share of its wall or CPU time is warned of. */
const GROWTH = 0.2;
/** A file is named as grown when it took this share and this many seconds more. */
const FILE_GROWTH = 0.2;
const FILE_SECONDS = 3;
/** A file slower than this names why (`// @slow: <why>`), or is warned of. */
const SLOW_FILE = 30;
/** A new file is named when it takes this long. */
const NEW_FILE = 10;
/** A file that took this many times as long, and this many seconds more, is warned of in any tier. */
const FILE_JUMP = 2;
const FILE_JUMP_SECONDS = 10;
const LOUD = "!!! ";

const percent = (now, before) => `${now >= before ? "+" : ""}${Math.round(((now - before) / before) * 100)}%`;
const filesOf = (tier) => Object.entries(tier.files ?? {}).sort((a, b) => b[1] - a[1]);

/**
 * Each tier's ten slowest files with their seconds and, for those over 30 s, their reason.
 * `reasonOf(file)` is what the file's `// @slow:` line says, or undefined.
 */
export function slowest(tiers, reasonOf) {
	const lines = [];
	for (const tier of tiers) {
		const files = filesOf(tier).slice(0, 10);
		if (files.length === 0) continue;
		lines.push(`tests: the slowest files of ${tier.name} (${tier.wall} s, CPU ${tier.cpu} s):`);
		for (const [file, seconds] of files) {
			const reason = seconds > SLOW_FILE ? reasonOf(file) : undefined;
			lines.push(`${String(seconds).padStart(8)} s  ${file}${reason ? `  (${reason})` : ""}`);
		}
	}
	return lines.join("\n");
}

/**
 * The warnings of a run against `baseline` (figures.json's entry for its group, or undefined): each
 * tier that grew by 20%, with the files that grew most; any file that took twice as long and 10 s
 * more, whatever its tier did (`partial`: only some files ran, so only files are compared); files
 * over 30 s that name no reason.
 */
export function compare(tiers, baseline, reasonOf, partial = false) {
	const warnings = [];
	if (!baseline) warnings.push("tests: no figures committed for this group yet (test/loop/figures.json)");
	for (const tier of tiers) {
		const before = baseline?.tiers?.[tier.name];
		const grew = before && (tier.wall > before.wall * (1 + GROWTH) || tier.cpu > before.cpu * (1 + GROWTH));
		if (grew && !partial) {
			warnings.push(
				`${LOUD}tests: ${tier.name} is SLOWER than the last green run (${baseline.commit}, ${baseline.date}): ` +
					`wall ${tier.wall} s against ${before.wall} s (${percent(tier.wall, before.wall)}), ` +
					`CPU ${tier.cpu} s against ${before.cpu} s (${percent(tier.cpu, before.cpu)})` +
					(tier.busy !== undefined && before.busy !== undefined
						? `, the machine's CPUs ${tier.busy}% busy against ${before.busy}%`
						: ""),
			);
			for (const line of grown(tier, before)) warnings.push(`${LOUD}    ${line}`);
		} else if (before) {
			for (const [file, seconds] of filesOf(tier)) {
				const was = before.files?.[file];
				if (was !== undefined && seconds > was * FILE_JUMP && seconds - was >= FILE_JUMP_SECONDS)
					warnings.push(
						`${LOUD}tests: ${file} took ${seconds} s against ${was} s in the last green run (${baseline.commit})`,
					);
			}
		}
		for (const [file, seconds] of filesOf(tier)) {
			if (seconds > SLOW_FILE && !reasonOf(file))
				warnings.push(`${LOUD}tests: ${file} took ${seconds} s and names no reason: add \`// @slow: <why>\` to it`);
		}
	}
	return warnings;
}

/** The files of `tier` that grew most over `before`, or came new and slow, at most ten. */
function grown(tier, before) {
	const changes = [];
	for (const [file, seconds] of filesOf(tier)) {
		const was = before.files?.[file];
		if (was === undefined) {
			if (seconds >= NEW_FILE) changes.push({ added: seconds, line: `${file}: ${seconds} s, new` });
		} else if (seconds > was * (1 + FILE_GROWTH) && seconds - was >= FILE_SECONDS) {
			const added = Math.round((seconds - was) * 10) / 10;
			changes.push({ added, line: `${file}: ${seconds} s against ${was} s (+${added} s)` });
		}
	}
	if (changes.length === 0) return ["no file grew much on its own: the whole tier is slower (a busy machine?)"];
	return changes
		.sort((a, b) => b.added - a.added)
		.slice(0, 10)
		.map((change) => change.line);
}

/**
 * The lines that say what failed, one block per failed tier: its exit code, then each failed test
 * with its error's first line and where it was thrown, or else the end of its output (`tail`), or
 * else where to look.
 */
export function failed(tiers) {
	const lines = [];
	for (const tier of tiers.filter((each) => each.code !== 0)) {
		const count = tier.failures?.length ?? 0;
		lines.push(
			`${LOUD}tests: ${tier.name} FAILED (exit ${tier.code})` +
				(count > 0 ? `: ${count} failure${count === 1 ? "" : "s"}` : ""),
		);
		if (count > 0)
			for (const { file, test, error, at } of tier.failures)
				lines.push(`${LOUD}    ${file} > ${test}: ${error}${at ? ` (at ${at})` : ""}`);
		else if (tier.tail?.length > 0)
			lines.push(`${LOUD}    its output ended:`, ...tier.tail.map((line) => `    | ${line}`));
		else lines.push(`${LOUD}    it named no failed test: its output above says why`);
	}
	return lines;
}
