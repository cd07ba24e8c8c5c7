// The environment an agent CLI gets: a base allowlist, its own credentials and what `CREW_PASS_ENV` names.

const BASE: ReadonlySet<string> = new Set(["PATH", "HOME", "USER", "SHELL", "TMPDIR", "TERM", "LANG", "IS_SANDBOX"]);

/** Whether `key` is one of `entries`: names, or prefixes ending in `*`. */
function matcher(entries: readonly string[]): (key: string) => boolean {
	const names = new Set(entries.filter((entry) => !entry.endsWith("*")));
	const prefixes = entries.filter((entry) => entry.endsWith("*")).map((entry) => entry.slice(0, -1));
	return (key) => names.has(key) || prefixes.some((prefix) => key.startsWith(prefix));
}

/**
 * Names the user adds to the allowlist in `CREW_PASS_ENV`: comma-separated, each a variable's name
 * or a prefix ending in `*` (`HTTPS_PROXY, NODE_EXTRA_CA_CERTS, MY_TOOL_*`).
 */
function passed(source: NodeJS.ProcessEnv): (key: string) => boolean {
	return matcher(
		(source.CREW_PASS_ENV ?? "")
			.split(",")
			.map((entry) => entry.trim())
			.filter((entry) => entry !== ""),
	);
}

/**
 * The environment an agent CLI gets: a base allowlist, plus `credentials` (the variables that CLI
 * reads for its own configuration and its model provider's keys: names, or prefixes ending in
 * `*`), so a user's existing setup works unchanged while no agent sees another provider's keys,
 * plus what the user names in `CREW_PASS_ENV`; nothing else of the invoking environment leaks in.
 * `extra` is added last.
 */
export function agentEnvironment(
	source: NodeJS.ProcessEnv,
	extra: Record<string, string>,
	credentials: readonly string[],
): Record<string, string> {
	const userPassed = passed(source);
	const own = matcher(credentials);
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(source)) {
		if (value === undefined) continue;
		if (BASE.has(key) || key.startsWith("LC_") || own(key) || userPassed(key)) env[key] = value;
	}
	return { ...env, ...extra };
}
