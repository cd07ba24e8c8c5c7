const BASE: ReadonlySet<string> = new Set(["PATH", "HOME", "USER", "SHELL", "TMPDIR", "TERM", "LANG", "IS_SANDBOX"]);
const PREFIXES = ["LC_", "PI_", "ANTHROPIC_", "CLAUDE_", "CODEX_", "OPENAI_"];

/**
 * Names the user adds to the allowlist in `CREW_PASS_ENV`: comma-separated, each a variable's name
 * or a prefix ending in `*` (`HTTPS_PROXY, NODE_EXTRA_CA_CERTS, MY_TOOL_*`).
 */
function passed(source: NodeJS.ProcessEnv): (key: string) => boolean {
	const entries = (source.CREW_PASS_ENV ?? "")
		.split(",")
		.map((entry) => entry.trim())
		.filter((entry) => entry !== "");
	const names = new Set(entries.filter((entry) => !entry.endsWith("*")));
	const prefixes = entries.filter((entry) => entry.endsWith("*")).map((entry) => entry.slice(0, -1));
	return (key) => names.has(key) || prefixes.some((prefix) => key.startsWith(prefix));
}

/**
 * The environment an agent CLI gets: a base allowlist, plus the variables the CLIs read for their
 * own configuration and credentials, so a user's existing setup works unchanged, plus what the
 * user names in `CREW_PASS_ENV`; nothing else of the invoking environment leaks in. `extra` is
 * added last.
 */
export function agentEnvironment(source: NodeJS.ProcessEnv, extra: Record<string, string>): Record<string, string> {
	const userPassed = passed(source);
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(source)) {
		if (value === undefined) continue;
		if (
			BASE.has(key) ||
			key.endsWith("_API_KEY") ||
			PREFIXES.some((prefix) => key.startsWith(prefix)) ||
			userPassed(key)
		)
			env[key] = value;
	}
	return { ...env, ...extra };
}
