// An agent CLI's own folder, and the folder of its own a confined attempt gets in its place.

import {
	existsSync,
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { readPlainFile } from "../attempt-files.js";

/**
 * An agent CLI's own folder (settings, models, extensions, agents, logins), which it reads at every
 * session, in crew and outside it. A confined attempt gets a folder of its own in its place, so
 * nothing it writes there reaches the user's next session or crew's user layer.
 */
export interface CliHome {
	/** The user's folder. */
	readonly dir: string;
	/** The variable that points the CLI at another folder. */
	readonly variable: string;
	/** Files it must update in the user's folder: its login's tokens, which a refresh replaces. */
	readonly through: readonly string[];
	/**
	 * The entries of `dir` linked in: all but those it writes as it runs (sessions, logs), which each
	 * attempt starts without; or only those it reads, where it writes many others in place.
	 */
	readonly links: { readonly except: readonly string[] } | { readonly only: readonly string[] };
	/** Files outside `dir` it reads as its own, by the name it looks for them under in a folder it is pointed at. */
	readonly beside?: Readonly<Record<string, string>>;
}

/**
 * The attempt's folder `folder` in place of `home`'s: a link to each entry of the user's folder that
 * `links` names, which the sandbox shows read-only where it leads, so the CLI reads everything the
 * user set up, and a copy of each `through` file; whatever it writes lands in `folder` and stays
 * with the attempt (unless `env` names a folder that is not there). Answers the variables to set,
 * what the sandbox must show read-only (where the links lead), and `settle`, which, once the attempt's processes have ended, puts back in the user's folder each
 * `through` file the CLI changed, and removes the copies.
 */
export function attemptHome(
	home: CliHome,
	folder: string,
	env: NodeJS.ProcessEnv,
): { readonly env: Readonly<Record<string, string>>; readonly shows: readonly string[]; settle(): void } {
	// A folder the user names that is not there is the CLI's to refuse, as it would unconfined.
	if (env[home.variable] && !existsSync(home.dir)) return { env: {}, shows: [], settle: () => undefined };
	mkdirSync(folder, { recursive: true });
	const { links } = home;
	const names = existsSync(home.dir) ? readdirSync(home.dir) : [];
	const linked =
		"only" in links ? names.filter((n) => links.only.includes(n)) : names.filter((n) => !links.except.includes(n));
	const targets = [
		...linked.map((name) => [name, join(home.dir, name)] as const),
		...Object.entries(home.beside ?? {}).filter(([, file]) => existsSync(file)),
	];
	const copies: { readonly copy: string; readonly original: string; readonly text: Buffer }[] = [];
	for (const [name, target] of targets) {
		const own = join(folder, name);
		if (home.through.includes(name) && lstatSync(target).isFile()) {
			// Copied, not linked: a CLI locks such a file beside where it finds it.
			const text = readFileSync(target);
			writeFileSync(own, text, { mode: 0o600 });
			copies.push({ copy: own, original: target, text });
		} else if (!lstatSync(own, { throwIfNoEntry: false })) {
			// A retried attempt's folder has its links already (even to an entry since removed).
			symlinkSync(target, own);
		}
	}
	return {
		env: { [home.variable]: folder },
		// Where the links lead, which may be out of a confined process's sight (under /tmp, say).
		shows: [...(existsSync(home.dir) ? [home.dir] : []), ...Object.values(home.beside ?? {}).filter(existsSync)],
		settle() {
			for (const { copy, original, text } of copies) {
				const now = readPlainFile(copy);
				if (now !== undefined && !now.equals(text)) writeFileSync(original, now, { mode: 0o600 });
				// A login is not kept with the run's files.
				rmSync(copy, { force: true });
			}
		},
	};
}
