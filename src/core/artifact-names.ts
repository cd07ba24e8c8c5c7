// Names of the files in a run's folder: what they may be, and which is a task's last attempt patch.

/** One segment of an artifact's name: what a run folder's files may be called, nothing a shell or a path reads otherwise. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** Whether `name` can name a file in a run's folder: '/'-separated segments, none leaving it. */
export function isArtifactName(name: string): boolean {
	return name.split("/").every((s) => SEGMENT.test(s) && !s.includes(".."));
}

/** What an artifact's name must be, for an error that names a bad one. */
export const ARTIFACT_NAME_RULE =
	"'/'-separated names of 1-128 ASCII letters (A-Z, a-z), digits, '-', '_' or '.', none starting with '.' or '-' nor holding '..'";

/** Of a task's file names or paths, its last attempt's patch (`attempt-N.patch`, N largest); undefined when none. */
export function lastAttemptPatch(names: readonly string[]): string | undefined {
	const number = (name: string) => Number(/(?:^|\/)attempt-(\d+)\.patch$/.exec(name)?.[1] ?? 0);
	return names.filter((name) => number(name) > 0).sort((a, b) => number(b) - number(a))[0];
}
