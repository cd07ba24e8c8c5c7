// The runtime of an `--until-judged` check: the `--until` command, then a judge agent shown the change.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fenced } from "../../core/fenced.js";
import { redact } from "../../core/redact.js";
import { writeAttemptFile } from "../../runtimes/attempt-files.js";
import { runCheck } from "../../runtimes/verified-runtime.js";
import type { RunControl, TaskRequest, WorkerResult, WorkerRuntime } from "../../runtimes/worker-runtime.js";
import { gitRun } from "../../workspace/git.js";

/** Characters of the change and of the check's output a judge is shown. */
const DIFF_CHARS = 24_000;
const CHECK_CHARS = 8_000;

/**
 * The runtime of a goal's check after a pass (`--until-judged`): the user's `--until` command
 * first, when there is one, whose failure ends the check as a failed `--until` does (the next pass
 * is given its output); then the judge agent, its prompt followed by that output and the change in
 * the workspace since `base` (or the checkout's HEAD), both fenced as data. What was added is kept
 * as the attempt's evidence file; the judge's answer is read as a verdict by the engine.
 */
export function judgingGoal(
	judge: WorkerRuntime,
	checker: WorkerRuntime,
	check: { readonly command?: string; readonly base?: string },
): WorkerRuntime {
	return {
		name: judge.name,
		async run(request: TaskRequest, control: RunControl): Promise<WorkerResult> {
			const sections: string[] = [];
			const artifacts: WorkerResult["artifacts"][number][] = [];
			if (check.command !== undefined) {
				// The user's own command, writable as a plain `--until` is, whatever the judge's own sandbox.
				const sandbox = request.sandbox ? { sandbox: { ...request.sandbox, readOnly: false } } : {};
				const ran = await runCheck(checker, check.command, { ...request, ...sandbox }, control, "");
				artifacts.push(...ran.artifacts);
				if (!ran.check.ok) {
					const message = `the check \`${check.command}\` failed: ${ran.check.error?.message ?? "it did not pass"}`;
					return { ...ran.check, ok: false, artifacts, error: { message, retryable: false, unmet: true } };
				}
				sections.push(
					fencedUnder(`The check \`${check.command}\` passed; its output`, "check-output", ran.check.text, CHECK_CHARS),
				);
			}
			sections.push(
				fencedUnder(
					"The change in the repository so far",
					"change",
					await changeOf(request.cwd, check.base),
					DIFF_CHARS,
				),
			);
			const name = `judge/attempt-${request.attempt}.context.md`;
			mkdirSync(join(request.artifactDir, "judge"), { recursive: true });
			writeAttemptFile(join(request.artifactDir, name), redact(sections.join("\n")));
			artifacts.push({ name: `${request.artifactPrefix}/${name}`, kind: "evidence" });
			const prompt = [request.prompt.trimEnd(), "", ...sections].join("\n");
			const judged = await judge.run({ ...request, prompt }, control);
			return { ...judged, artifacts: [...judged.artifacts, ...artifacts] };
		},
	};
}

/** `text` under a heading, fenced as data in `<tag>`, its first `limit` characters. */
function fencedUnder(heading: string, tag: string, text: string, limit: number): string {
	const shown = text.length > limit ? text.slice(0, limit) : text;
	const attributes: Record<string, number | boolean> = { chars: text.length };
	if (shown.length < text.length) attributes.truncated = true;
	return [`## ${heading}`, "", fenced(tag, shown, attributes), ""].join("\n");
}

/** The workspace's change since `base` (else HEAD) and its new files, as git shows them; why not, outside git. */
async function changeOf(cwd: string, base: string | undefined): Promise<string> {
	const diff = await gitRun(cwd, ["diff", "--stat", "--patch", base ?? "HEAD"]);
	if (diff.code !== 0) return `(no change to show: ${diff.stderr.trim().split("\n").at(-1) ?? "git failed"})`;
	const untracked = await gitRun(cwd, ["ls-files", "--others", "--exclude-standard"]);
	const added = untracked.code === 0 ? untracked.stdout.trim() : "";
	const parts = [diff.stdout.trim() || "(no change to tracked files)"];
	if (added !== "") parts.push("", "New files, not shown above (read them where they matter):", added);
	return parts.join("\n");
}
