// A repository whose user config lets its agents delegate, as the tests of runs inside runs use it.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TrustStore } from "../../src/config/trust.js";
import { TestRepo } from "../helpers.js";

/**
 * A trusted repository whose user config (a folder of its own) has `nesting` (default: runs nested
 * 2 deep), with the environment that names that config, `extraEnv` added.
 */
export function nestingRepo(
	extraEnv: NodeJS.ProcessEnv = {},
	nesting: object = { maxDepth: 2 },
): { repo: TestRepo; env: NodeJS.ProcessEnv } {
	const home = mkdtempSync(join(tmpdir(), "crew-config-"));
	mkdirSync(join(home, "crew"));
	writeFileSync(join(home, "crew", "config.json"), JSON.stringify({ nesting }));
	const repo = new TestRepo();
	const env = { ...process.env, XDG_CONFIG_HOME: home, ...extraEnv };
	new TrustStore(env).trust(repo.dir);
	return { repo, env };
}

/** A command agent at the default sandbox: no `sandbox:` key, so the run's level holds. */
export function confinedCommand(repo: TestRepo, name: string, command: string): void {
	repo.writeFile(`.crew/agents/${name}.md`, `---\nname: ${name}\nruntime: command\ncommand: ${command}\n---\n`);
}
