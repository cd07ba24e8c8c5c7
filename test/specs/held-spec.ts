import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { crew, TestRepo } from "../helpers.js";

/** A repository with `spec` imported (in a pi agent folder of its own), and that folder's environment. */
export async function repoWithSpec(spec: object): Promise<{ repo: TestRepo; env: NodeJS.ProcessEnv }> {
	const repo = new TestRepo();
	const env = { ...process.env, PI_CODING_AGENT_DIR: mkdtempSync(join(tmpdir(), "crew-pi-agent-")) };
	writeFileSync(join(repo.dir, "spec.json"), JSON.stringify(spec));
	const imported = await crew(repo.dir, ["spec", "import", "spec.json"], 60_000, env);
	expect(imported.code, imported.stderr).toBe(0);
	return { repo, env };
}

/** `heldCommand`, whose agent answers `answer` (in `printf`'s escapes). */
export function heldWorkflow(
	repo: TestRepo,
	refs: string,
	answer: string,
	extra: Record<string, string> = {},
	verifier = true,
): void {
	heldCommand(repo, refs, `printf '${answer}'`, extra, verifier);
}

/**
 * A workflow `held` whose `work` step names `refs` and whose agent runs `command`, with `extra`
 * keys, and a step of role verifier unless asked not to; run with the team `held`, whose verifier
 * is a command of the repository's (the builtin verifier is a pi agent).
 */
export function heldCommand(
	repo: TestRepo,
	refs: string,
	command: string,
	extra: Record<string, string> = {},
	verifier = true,
): void {
	repo.commandAgent("answerer", command);
	repo.commandAgent("checker", "echo checked");
	repo.writeFile(
		".crew/teams/held.team.md",
		"---\nname: held\n---\n- worker: agent=answerer\n- verifier: agent=checker\n",
	);
	repo.workflow("held", [
		{ id: "work", role: "worker", extra: { specRefs: refs, ...extra } },
		...(verifier ? [{ id: "check", role: "verifier", dependsOn: ["work"] }] : []),
	]);
}
