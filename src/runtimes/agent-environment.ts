const BASE: ReadonlySet<string> = new Set(["PATH", "HOME", "USER", "SHELL", "TMPDIR", "TERM", "LANG", "IS_SANDBOX"]);
const PREFIXES = ["LC_", "PI_", "ANTHROPIC_", "CLAUDE_", "CODEX_", "OPENAI_"];

/**
 * The environment an agent CLI gets: a base allowlist, plus the variables the CLIs read for their
 * own configuration and credentials, so a user's existing setup works unchanged; nothing else of
 * the invoking environment leaks in. `extra` is added last.
 */
export function agentEnvironment(source: NodeJS.ProcessEnv, extra: Record<string, string>): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(source)) {
		if (value === undefined) continue;
		if (BASE.has(key) || key.endsWith("_API_KEY") || PREFIXES.some((prefix) => key.startsWith(prefix)))
			env[key] = value;
	}
	return { ...env, ...extra };
}
