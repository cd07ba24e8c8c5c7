import { basename, isAbsolute } from "node:path";
import { FailurePolicy } from "../core/types.js";
import { type Diagnostic, isFieldLine, list, parseDocument, parseFields } from "./frontmatter.js";

export interface WorkflowStep {
	readonly id: string;
	readonly role: string;
	readonly dependsOn: readonly string[];
	readonly text: string;
	/** Every `key: value` line of the step as written. */
	readonly fields: Readonly<Record<string, string>>;
}

export interface WorkflowResource {
	readonly name: string;
	readonly description: string;
	readonly maxConcurrency?: number;
	/** What a failed task does to the run, unless the run says otherwise (crew's addition). */
	readonly failure?: FailurePolicy;
	readonly steps: readonly WorkflowStep[];
	readonly file: string;
	/** A TypeScript workflow script: its tasks come from running it, so it has no steps. */
	readonly script?: true;
}

const STEP_KEYS: ReadonlySet<string> = new Set([
	"role",
	"dependsOn",
	"parallelGroup",
	"output",
	"reads",
	"model",
	"skills",
	"progress",
	"worktree",
	"verify",
	"task",
	"seedPaths",
	"timeout",
	"stallTimeout",
	"retries",
	"approval",
	"expand",
	"writes",
]);

/**
 * Reads a workflow: frontmatter, then one `## <step-id>` section per step with `key: value` lines,
 * a blank line and the task text. Anything before the first `##` is prose and ignored.
 */
export function parseWorkflow(text: string, file: string): { workflow: WorkflowResource; diagnostics: Diagnostic[] } {
	const { fields, body } = parseDocument(text);
	const diagnostics: Diagnostic[] = [];
	const steps: WorkflowStep[] = [];
	const sections = body
		.replace(/<!--[\s\S]*?-->/g, "")
		.split(/^##[ \t]+/m)
		.slice(1);
	for (const section of sections) {
		const lines = section.split("\n");
		const id = (lines[0] ?? "").trim();
		let k = 1;
		const keyLines: string[] = [];
		while (k < lines.length && (lines[k] ?? "").trim() !== "" && isFieldLine(lines[k] ?? "")) {
			keyLines.push(lines[k] ?? "");
			k++;
		}
		const stepFields = parseFields(keyLines);
		for (const key of Object.keys(stepFields)) {
			if (!STEP_KEYS.has(key))
				diagnostics.push({ level: "warning", file, message: `step '${id}': unknown key '${key}' kept` });
		}
		const taskText = stepFields.task ?? lines.slice(k).join("\n").trim();
		if (taskText === "") diagnostics.push({ level: "error", file, message: `step '${id}' has no task text` });
		steps.push({
			id,
			role: stepFields.role || id,
			dependsOn: list(stepFields.dependsOn),
			text: taskText,
			fields: stepFields,
		});
	}
	diagnostics.push(...checkOutputs(steps, file));
	const policies: readonly string[] = Object.values(FailurePolicy);
	const failure = fields.failure || undefined;
	if (failure !== undefined && !policies.includes(failure)) {
		diagnostics.push({ level: "error", file, message: `failure '${failure}': expected ${policies.join(", ")}` });
	}
	const max = fields.maxConcurrency === undefined ? undefined : Number(fields.maxConcurrency);
	if (max !== undefined && !(Number.isInteger(max) && max >= 1)) {
		diagnostics.push({
			level: "error",
			file,
			message: `maxConcurrency '${fields.maxConcurrency}': expected an integer >= 1`,
		});
	}
	return {
		workflow: {
			name: fields.name || basename(file).replace(/(\.workflow)?\.md$/, ""),
			description: fields.description ?? "",
			...(max !== undefined && Number.isInteger(max) && max >= 1 ? { maxConcurrency: max } : {}),
			...(failure !== undefined && policies.includes(failure) ? { failure: failure as FailurePolicy } : {}),
			steps,
			file,
		},
		diagnostics,
	};
}

/**
 * A step's `output` names a file in the run's artifacts, so it must stay inside them; a `reads`
 * entry that no step writes is allowed (it may exist already) but worth a warning.
 */
function checkOutputs(steps: readonly WorkflowStep[], file: string): Diagnostic[] {
	const diagnostics: Diagnostic[] = [];
	const outputs = new Set<string>();
	for (const step of steps) {
		const output = step.fields.output;
		if (!output || output === "false") continue;
		if (isAbsolute(output) || output.split(/[\\/]/).includes("..")) {
			diagnostics.push({
				level: "error",
				file,
				message: `step '${step.id}': output '${output}' must be a relative path inside the run's artifacts`,
			});
		} else outputs.add(output);
	}
	for (const step of steps) {
		for (const read of list(step.fields.reads)) {
			if (!outputs.has(read)) {
				diagnostics.push({
					level: "warning",
					file,
					message: `step '${step.id}' reads '${read}', which no step writes`,
				});
			}
		}
	}
	return diagnostics;
}
