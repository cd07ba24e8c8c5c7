// `crew list`, `show`, `validate`, `plan`, `trust` and `recommend`: the project's resources and trust.

import { findProject } from "../../config/project.js";
import { resourceLayers, userResourceDirs } from "../../config/resource-layers.js";
import { TrustStore } from "../../config/trust.js";
import type { ThinkingLevel } from "../../core/thinking.js";
import type { FailurePolicy } from "../../core/types.js";
import { estimateFromStore } from "../../engine/planning/estimate.js";
import { planRun } from "../../engine/planning/planner.js";
import { type Diagnostic, diagnosticText } from "../../resources/frontmatter.js";
import { ResourceLoader } from "../../resources/resource-loader.js";
import { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import { planSummary } from "../shared/plan-summary.js";
import { recommendTeam, resourceKind, resourceRows, validationReport } from "../shared/resource-reports.js";
import { Exit } from "./exit-codes.js";
import { readGoal } from "./goal-input.js";
import { print, printError } from "./print.js";

export interface TrustFlags {
	readonly list?: boolean;
	readonly revoke?: boolean;
}

export interface PlanFlags {
	readonly workflow?: string;
	readonly goalFile?: string;
	readonly team?: string;
	readonly runtime?: string;
	readonly model?: string;
	readonly thinking?: ThinkingLevel;
	readonly failure?: FailurePolicy;
	readonly json?: boolean;
}

/** The resources of the project around the current directory; reading them creates nothing. */
function loader(): ResourceLoader {
	const project = findProject(process.cwd());
	return new ResourceLoader({ layers: resourceLayers(project, userResourceDirs()), cwd: process.cwd() });
}

function diagnosticLine(d: Diagnostic): string {
	return diagnosticText(d);
}

export async function listCommand(kind: string | undefined, options: { json?: boolean }): Promise<number> {
	const kinds = kind === undefined ? (["agent", "team", "workflow"] as const) : [resourceKind(kind)];
	const rows = resourceRows(loader(), kinds);
	if (options.json) {
		print(`${JSON.stringify(rows)}\n`);
		return Exit.Ok;
	}
	const width = Math.max(4, ...rows.map((r) => r.name.length)) + 2;
	for (const k of kinds) {
		print(`${k}s:\n`);
		for (const r of rows.filter((row) => row.kind === k)) {
			print(`  ${r.name.padEnd(width)}${r.layer.padEnd(9)}${r.description}\n`);
		}
	}
	return Exit.Ok;
}

export async function showCommand(kind: string, name: string, options: { json?: boolean }): Promise<number> {
	const k = resourceKind(kind);
	const { item, diagnostics } = loader().load(k, name);
	if (options.json) {
		print(`${JSON.stringify({ kind: k, ...item, diagnostics })}\n`);
		return Exit.Ok;
	}
	const lines = [`${k} ${item.name}  (${item.file})`];
	if (item.description) lines.push(`  ${item.description}`);
	if ("runtime" in item) {
		lines.push(`  runtime: ${item.runtime}${item.command ? `  command: ${item.command}` : ""}`);
		lines.push(
			`  model: ${item.model ?? "inherited"}${item.fallbackModels ? `, then ${item.fallbackModels.join(", ")}` : ""}`,
		);
		lines.push(
			`  tools: ${item.tools ? item.tools.join(", ") : "all"}  permissions: ${item.permissions ?? "workspace"}`,
		);
		if (item.systemPrompt) lines.push("", item.systemPrompt);
	} else if ("roles" in item) {
		lines.push(`  default workflow: ${item.defaultWorkflow ?? "none"}  workspace: ${item.workspaceMode}`);
		for (const role of item.roles) {
			lines.push(
				`  - ${role.name}: agent ${role.agent}${role.model ? `, model ${role.model}` : ""}  ${role.description}`,
			);
		}
	} else {
		for (const step of item.steps) {
			const deps = step.dependsOn.length > 0 ? ` after ${step.dependsOn.join(", ")}` : "";
			lines.push(`  ${step.id}: role ${step.role}${deps}`);
		}
	}
	for (const d of diagnostics) lines.push(diagnosticLine(d));
	print(`${lines.join("\n")}\n`);
	return Exit.Ok;
}

export async function validateCommand(options: { json?: boolean }): Promise<number> {
	const { root } = findProject(process.cwd());
	const report = validationReport({
		loader: loader(),
		runtimes: RuntimeRegistry.standard(),
		cwd: root,
		trusted: new TrustStore().isTrusted(root),
	});
	if (options.json) print(`${JSON.stringify(report)}\n`);
	else {
		for (const d of report.diagnostics) print(`${diagnosticLine(d)}\n`);
		print(
			`${report.errors === 0 ? "valid" : "invalid"}: ${report.agents} agents, ${report.teams} teams, ${report.workflows} workflows; ${counted(report.errors, "error")}, ${counted(report.warnings, "warning")}\n`,
		);
	}
	return report.errors === 0 ? Exit.Ok : Exit.Usage;
}

export async function planCommand(argument: string | undefined, flags: PlanFlags): Promise<number> {
	const goal = readGoal(argument, flags.goalFile);
	const project = findProject(process.cwd());
	const plan = planRun(
		{
			goal,
			...(flags.workflow !== undefined ? { workflow: flags.workflow } : {}),
			...(flags.team !== undefined ? { team: flags.team } : {}),
			...(flags.runtime !== undefined ? { runtime: flags.runtime } : {}),
			...(flags.model !== undefined ? { model: flags.model } : {}),
			...(flags.thinking !== undefined ? { thinking: flags.thinking } : {}),
			...(flags.failure !== undefined ? { failure: flags.failure } : {}),
		},
		{ loader: loader(), runtimes: RuntimeRegistry.standard(), cwd: project.root },
	);
	const summary = planSummary(plan, estimateFromStore(plan, project));
	if (flags.json) {
		print(`${JSON.stringify(summary)}\n`);
		return Exit.Ok;
	}
	for (const d of plan.diagnostics) printError(`crew: ${diagnosticLine(d)}\n`);
	if (summary.script) {
		print(
			`plan: workflow script ${plan.workflow} (${summary.script.file})${plan.team ? `, team ${plan.team}` : ""}; its tasks are made as it runs, by the roles ${summary.script.roles.join(", ")}; nothing runs\n${summary.estimate ? `estimate: ${summary.estimate.line}\n` : ""}`,
		);
		return Exit.Ok;
	}
	const byId = new Map(plan.tasks.map((t) => [t.id, t]));
	const groups = summary.parallelGroups;
	const lines = [
		`plan: workflow ${plan.workflow}${plan.team ? `, team ${plan.team}` : ""}; ${plan.tasks.length} tasks in ${groups.length} levels; nothing runs`,
	];
	for (const [l, ids] of groups.entries()) {
		const tasks = ids.map((id) => {
			const t = byId.get(id);
			const runtime = plan.options.runtime ?? t?.agent.runtime;
			const notes = [
				t?.expand ? "its plan adds tasks" : "",
				t?.approval ? "waits for approval" : "",
				t?.verify ? (t.verify.kind === "verdict" ? "needs PASS" : `checked by: ${t.verify.command}`) : "",
			].filter(Boolean);
			const model = t?.agent.model ? ` ${t.agent.model}` : "";
			return `${id} (${t?.role} → ${t?.agent.name}, ${runtime}${model}${notes.length > 0 ? `; ${notes.join("; ")}` : ""})`;
		});
		lines.push(`  ${l + 1}. ${tasks.join(", ")}`);
	}
	const critical = summary.criticalPath;
	lines.push(`critical path: ${critical.join(" → ")} (${critical.length} steps)`);
	if (summary.estimate) lines.push(`estimate: ${summary.estimate.line}`);
	print(`${lines.join("\n")}\n`);
	return Exit.Ok;
}

/** Trusts the repository you stand in (no prompt, no argument), lists trusted ones, or revokes. */
export async function trustCommand(flags: TrustFlags): Promise<number> {
	const store = new TrustStore();
	if (flags.list) {
		const trusted = store.list();
		if (trusted.length === 0) print("no repository is trusted\n");
		for (const t of trusted) print(`${t.path}  (since ${t.trustedAt})\n`);
		return Exit.Ok;
	}
	const { root } = findProject(process.cwd());
	if (flags.revoke) {
		const was = store.revoke(root);
		print(`${was ? "no longer trusted" : "was not trusted"}: ${root}\n`);
		return Exit.Ok;
	}
	store.trust(root);
	print(`trusted: ${root}; crew will run the commands its own files define\n`);
	return Exit.Ok;
}

/** The team (and its default workflow) whose routing hints fit the goal best, with the reason. */
export async function recommendCommand(goal: string, options: { json?: boolean }): Promise<number> {
	const pick = recommendTeam(loader(), goal);
	if (options.json) {
		print(`${JSON.stringify(pick)}\n`);
		return Exit.Ok;
	}
	const workflow = pick.workflow ? ` --workflow ${pick.workflow}` : "";
	const lines = [
		`team ${pick.team}${pick.workflow ? `, workflow ${pick.workflow}` : ""}: ${pick.reason}`,
		`  run it: crew run ${JSON.stringify(goal)} --team ${pick.team}${workflow}`,
	];
	if (pick.alternatives.length > 0) {
		lines.push(`  also: ${pick.alternatives.map((a) => `${a.team} (score ${a.score})`).join(", ")}`);
	}
	print(`${lines.join("\n")}\n`);
	return Exit.Ok;
}

/** `1 error`, `2 errors`. */
function counted(n: number, noun: string): string {
	return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
