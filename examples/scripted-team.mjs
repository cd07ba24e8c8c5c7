// The scripted model behind the demo: it plays each agent of the sample team the way a model
// would, through the tools pi offers it. It decides what to do from the task's text, and what to
// say from what the tools really returned: the edit, the test runs and the verdict are real.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const taskPrompt = (request) => request.messages.find((m) => m.role === "user")?.text ?? "";
const toolOutput = (request) => request.messages.filter((m) => m.role === "tool").pop()?.text ?? "";
const testLines = (text) =>
	text
		.split("\n")
		.filter((line) => /^# (pass|fail)\b/.test(line.trim()))
		.map((line) => line.trim());

/** What each task does: the tool call it makes first, and its report from that call's output. */
function plan(prompt, repo) {
	if (prompt.startsWith("Map the code")) {
		return {
			act: { kind: "shell", command: "git ls-files" },
			report: (out) => `files:\n${out.trim()}\n`,
		};
	}
	if (prompt.startsWith("Run the tests before")) {
		return {
			act: { kind: "shell", command: "node --test test/*.test.js 2>&1 | grep -E '^# (pass|fail)'" },
			report: (out) => `tests before the change:\n${testLines(out).join("\n")}\n`,
		};
	}
	if (prompt.startsWith("Fix:")) {
		const file = readFileSync(join(repo, "src", "slug.js"), "utf8");
		const fixed = file.replace('return words.join("-");', 'return words.join("-").toLowerCase();');
		return {
			act: { kind: "write", path: "src/slug.js", content: fixed },
			report: () => "slugify now lower-cases its output (src/slug.js)\n",
		};
	}
	if (prompt.startsWith("Record the change")) {
		return {
			act: { kind: "shell", command: "printf -- '- slugify returns lower-case slugs\\n' >> CHANGELOG.md" },
			report: () => "added a changelog entry\n",
		};
	}
	if (prompt.startsWith("Verify that")) {
		return {
			act: { kind: "shell", command: "node --test test/*.test.js 2>&1 | grep -E '^# (pass|fail)'" },
			report: (out) => {
				const lines = testLines(out);
				return `${lines.join("\n")}\n${lines.includes("# fail 0") ? "PASS" : "FAIL"}\n`;
			},
		};
	}
	if (prompt.startsWith("Summarise the run")) {
		return {
			act: { kind: "shell", command: "git status --short" },
			report: (out, request) => {
				const evidence = taskPrompt(request).match(/^(PASS|FAIL|# pass \d+|# fail \d+)$/gm) ?? [];
				return `changed files:\n${out.trimEnd()}\nevidence from earlier tasks:\n${evidence.join("\n")}\n`;
			},
		};
	}
	if (prompt.startsWith("Map the files")) {
		return {
			act: {
				kind: "shell",
				command:
					"git ls-files | wc -l; git ls-files | awk -F/ '{ print (NF > 1 ? $1 \"/\" : $1) }' | LC_ALL=C sort | uniq -c | LC_ALL=C sort -k1,1nr -k2 | head -n 12",
			},
			report: (out) => {
				const [count = "0", ...entries] = out.trim().split("\n");
				return `${count.trim()} tracked files; the largest folders and files at the top:\n${entries.map((line) => line.trim()).join("\n")}\n`;
			},
		};
	}
	if (prompt.startsWith("Read the recent history")) {
		return {
			act: { kind: "shell", command: "git log -n 8 --format='%h %ad %s' --date=short 2>&1" },
			report: (out) => `the latest commits:\n${out.trim()}\n`,
		};
	}
	if (prompt.startsWith("Report what this repository holds")) {
		return {
			act: { kind: "shell", command: "git status --short --untracked-files=no | wc -l" },
			report: (out, request) => {
				const found = [...taskPrompt(request).matchAll(/<result task="(\w+)"[^>]*>\n([\s\S]*?)<\/result>/g)];
				const sections = found.map(([, task, text]) => `${task}:\n${text.trimEnd()}`).join("\n\n");
				return `${sections}\n\ntracked files with uncommitted changes: ${out.trim()}\n`;
			},
		};
	}
	return { act: { kind: "text", text: "nothing scripted for this task" }, report: () => "" };
}

/** The script for the sample team working in `repo`. */
export function sampleTeamScript(repo) {
	return (request) => {
		const { act, report } = plan(taskPrompt(request).trimStart(), repo);
		if (!request.afterToolResult) return act;
		return { kind: "text", text: report(toolOutput(request), request) };
	};
}
