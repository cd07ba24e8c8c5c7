// @module-tag agent-cli
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, test } from "vitest";
import { SECRET, victims } from "./attacker.js";

/** An agent, or a repository's files, after the user's credentials: none may reach a prompt, a view or the model. */
const victim = victims();

/** The well-known places of credentials and shell history in a home, each planted with the secret. */
const CREDENTIALS = [
	".git-credentials",
	".netrc",
	".config/gh/hosts.yml",
	".config/glab-cli/config.yml",
	".npmrc",
	".yarnrc.yml",
	".pypirc",
	".cargo/credentials.toml",
	".docker/config.json",
	".kube/config",
	".aws/credentials",
	".config/gcloud/credentials.db",
	".azure/accessTokens.json",
	".password-store/bank.gpg",
	".local/share/keyrings/login.keyring",
	".gnupg/private-keys-v1.d/key.key",
	".ssh/id_ed25519",
	".bash_history",
	".zsh_history",
	".local/share/fish/fish_history",
	".python_history",
	".node_repl_history",
	".psql_history",
	".mysql_history",
	".gem/credentials",
	".m2/settings.xml",
	".gradle/gradle.properties",
	".terraform.d/credentials.tfrc.json",
	".vault-token",
	".config/hub",
	".s3cfg",
	".boto",
];

function plant(home: string): void {
	for (const file of CREDENTIALS) {
		mkdirSync(dirname(join(home, file)), { recursive: true });
		writeFileSync(join(home, file), `token = ${SECRET}\n`);
	}
}

test("the well-known credential and history files of the home are out of a confined agent's sight", async () => {
	const v = victim();
	plant(v.home);
	const reads = CREDENTIALS.map((file) => `cat "$HOME/${file}"`).join("; ");
	const { result, seen } = await v.agent([`${reads}; grep -r token "$HOME" 2>/dev/null | head -50; echo read`]);
	expect(result.code).toBe(0);
	expect(seen).toContain("read");
	expect(seen).not.toContain(SECRET);
});

test("a repository's agent file linked to the user's credentials is refused, not read into a view or a prompt", async () => {
	const v = victim();
	plant(v.home);
	mkdirSync(join(v.repo, ".crew", "agents"), { recursive: true });
	symlinkSync(join(v.home, ".aws", "credentials"), join(v.repo, ".crew", "agents", "x.md"));
	for (const args of [["show", "agent", "x"], ["list", "agents"], ["validate"]]) {
		const shown = await v.crew(args);
		expect(`${shown.stdout}${shown.stderr}`, args.join(" ")).not.toContain(SECRET);
	}
	expect((await v.crew(["trust"])).code).toBe(0);
	const shown = await v.crew(["show", "agent", "x"]);
	expect(shown.code).not.toBe(0);
	expect(shown.stderr).toMatch(/x\.md: it is a link to .*credentials, outside .*agents/);
	const { result, seen } = await v.agent(["echo hello"], { agentName: "x" });
	expect(`${result.stdout}${result.stderr}${seen}`).not.toContain(SECRET);
	expect(result.code).not.toBe(0);
});
