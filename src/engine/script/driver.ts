// The driver of a workflow script's run: runs it from the top, answering recorded calls from the store.

import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { answerJson } from "../../core/answer-json.js";
import { CrewError, ErrorCode, errorMessage } from "../../core/errors.js";
import type { RunRecord } from "../../core/records.js";
import { TaskStatus } from "../../core/status.js";
import type { ScriptSpec, TaskSpec } from "../../core/types.js";
import type { WorkflowResource } from "../../resources/workflow-file.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import { SpecFreezer } from "../../specs/spec-freeze.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import type { Lease } from "../../store/lease.js";
import type { RunStore } from "../../store/run-store.js";
import type { DriverControl, DriverOutcome, DriverRequests, RunDriver } from "../run/driver.js";
import { readInputs } from "./call-inputs.js";
import { callSpecs, callTask, describeCall, divergence, parseCall } from "./call-spec.js";
import type { WorkflowContext } from "./context.js";
import { type MailReply, REPLIES_EVENT, ScriptMailbox } from "./mailbox.js";
import { loadScript, scriptArgs } from "./module.js";
import { PI_CREW_SUFFIX, piCrewContext } from "./pi-crew-context.js";
import { renderPlan } from "./plan-template.js";
import { schemaAnswer, type ValueSchema, valueSchema } from "./result-schema.js";
import { fanOut, ScriptScope } from "./scope.js";

export interface ScriptDriverDeps {
	readonly store: RunStore;
	readonly files: ArtifactFiles;
	readonly lease: Lease;
	readonly run: RunRecord;
	readonly script: ScriptSpec;
	readonly runtimes: RuntimeRegistry;
	readonly now: () => number;
	readonly random: () => number;
	/** The workflow of that name, as `ctx.renderTemplate` renders it. */
	readonly workflow: (name: string) => WorkflowResource;
}

interface Waiter {
	readonly resolve: (value: unknown) => void;
	readonly reject: (error: unknown) => void;
}

/** Events a script writes once, which a replay reads back instead of writing again. */
const VALUE_EVENT = "script.value";
const LOG_EVENT = "script.log";
const PHASE_EVENT = "script.phase";

/**
 * Runs a workflow script as its run's driver. The script runs from the top at every start; each
 * `ctx.agent` call is a task identified by its place, so a call whose task already completed (or
 * failed) answers at once from the store and only calls without an outcome run. A call that asks,
 * at its place, for something else than the recorded run did stops the script as diverged.
 */
export class ScriptDriver implements RunDriver {
	readonly #deps: ScriptDriverDeps;
	readonly #scopes = new AsyncLocalStorage<ScriptScope>();
	readonly #root = new ScriptScope("", undefined);
	/** The run's tasks from earlier starts, by place. */
	readonly #recorded = new Map<string, TaskSpec>();
	/** The repository's specs, frozen as calls name them. */
	#specs: SpecFreezer | undefined;
	/** Status and error of every task this driver knows, by id. */
	readonly #known = new Map<string, { status: TaskStatus; error: string | null }>();
	readonly #values = new Map<string, { kind: string; value: number }>();
	readonly #gathered = new Map<string, readonly MailReply[]>();
	readonly #notes = new Set<string>();
	readonly #replayed = new Set<string>();
	readonly #wanted = new Set<string>();
	readonly #schemas = new Map<string, ValueSchema>();
	readonly #waiters = new Map<string, Waiter[]>();
	readonly #abort = new AbortController();
	#added: TaskSpec[] = [];
	#claimed: string[] = [];
	#control: DriverControl | undefined;
	#outcome: DriverOutcome | undefined;

	constructor(deps: ScriptDriverDeps) {
		this.#deps = deps;
		const { queries } = deps.store;
		const runId = deps.run.id;
		for (const spec of queries.taskSpecs(runId)) if (spec.call) this.#recorded.set(spec.call.key, spec);
		for (const task of queries.listTasks(runId)) this.#known.set(task.id, { status: task.status, error: task.error });
		for (const event of queries.eventsOfTypes(runId, [VALUE_EVENT, LOG_EVENT, PHASE_EVENT, REPLIES_EVENT])) {
			const key = String(event.data.key);
			if (event.type === REPLIES_EVENT) this.#gathered.set(key, event.data.replies as MailReply[]);
			else if (event.type === VALUE_EVENT)
				this.#values.set(key, { kind: String(event.data.kind), value: Number(event.data.value) });
			else this.#notes.add(key);
		}
	}

	get outcome(): DriverOutcome | undefined {
		return this.#outcome;
	}

	start(control: DriverControl): void {
		this.#control = control;
		void this.#main();
	}

	takeRequests(): DriverRequests {
		const requests = { added: this.#added, claimed: this.#claimed };
		this.#added = [];
		this.#claimed = [];
		return requests;
	}

	wants(taskId: string): boolean {
		return this.#wanted.has(taskId);
	}

	settled(taskId: string, status: TaskStatus, error: string | null): void {
		this.#known.set(taskId, { status, error });
		const waiters = this.#waiters.get(taskId) ?? [];
		this.#waiters.delete(taskId);
		for (const waiter of waiters) {
			try {
				waiter.resolve(this.#answer(taskId));
			} catch (failure) {
				waiter.reject(failure);
			}
		}
	}

	check(taskId: string, text: string): string[] {
		const schema = this.#schemas.get(taskId);
		if (!schema) return [];
		const json = answerJson(text);
		if ("problem" in json) return [json.problem];
		const checked = schema.check(json.value);
		return "problems" in checked ? checked.problems : [];
	}

	stop(reason: string): void {
		if (this.#abort.signal.aborted) return;
		const error = new CrewError(ErrorCode.Cancelled, `the run stopped: ${reason}`);
		this.#abort.abort(error);
		for (const waiters of this.#waiters.values()) for (const waiter of waiters) waiter.reject(error);
		this.#waiters.clear();
	}

	async #main(): Promise<void> {
		const { script, run } = this.#deps;
		try {
			const module = await loadScript(script.file);
			const sha256 = createHash("sha256").update(readFileSync(script.file)).digest("hex");
			if (sha256 !== script.sha256) {
				this.#write(() =>
					this.#deps.store.appendEvent(this.#deps.lease, "script.changed", null, { file: script.file, sha256 }),
				);
			}
			const args = scriptArgs(module, script.args, script.file);
			const crewCtx = this.#context(args);
			const piCrew = script.file.endsWith(PI_CREW_SUFFIX) ? this.#piCrewContext(crewCtx) : undefined;
			const returned = await this.#scopes.run(this.#root, () => module.main((piCrew?.ctx ?? crewCtx) as never));
			const value = returned ?? piCrew?.result();
			this.#checkAllReplayed();
			const text = `${JSON.stringify(value ?? null, null, 2)}\n`;
			const artifact = this.#deps.files.write(run.id, null, "result.json", "result", text);
			this.#write(() => {
				this.#deps.store.recordArtifacts(this.#deps.lease, [artifact]);
				this.#deps.store.appendEvent(this.#deps.lease, "script.completed", null, { chars: text.length });
			});
			this.#end({ ok: true });
		} catch (error) {
			this.#end({ ok: false, error: `workflow script ${run.workflow} failed: ${errorMessage(error)}` });
		}
	}

	/** The driver's writes go with the runner's: see `DriverControl.write`. */
	#write(fn: () => void): void {
		(this.#control as DriverControl).write(fn);
	}

	#end(outcome: DriverOutcome): void {
		this.#outcome ??= outcome;
		this.#control?.wake();
	}

	#scope(): ScriptScope {
		return this.#scopes.getStore() ?? this.#root;
	}

	#context(args: unknown): WorkflowContext {
		const control = () => this.#control as DriverControl;
		return {
			runId: this.#deps.run.id,
			goal: this.#deps.run.goal,
			agent: (call: unknown) => this.#agent(call),
			parallel: (branches) =>
				fanOut(this.#scope(), this.#scopes, branches, (branch) => branch(), Number.POSITIVE_INFINITY, "ctx.parallel"),
			fanOut: (items, fn, options) =>
				fanOut(this.#scope(), this.#scopes, items, fn, options?.concurrency, "ctx.fanOut"),
			args: <T>() => args as T,
			phase: (name: string) => {
				const scope = this.#scope();
				scope.phase = String(name);
				this.#note(scope.nextNote(), PHASE_EVENT, { phase: scope.phase });
			},
			log: (...parts: readonly unknown[]) => {
				const message = parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ");
				this.#note(this.#scope().nextNote(), LOG_EVENT, { message });
			},
			get budget() {
				return control().budget();
			},
			signal: this.#abort.signal,
			now: () => this.#value("now", () => this.#deps.now()),
			random: () => this.#value("random", () => this.#deps.random()),
		} as WorkflowContext;
	}

	/** pi-crew's `ctx` for its `.dwf.ts` scripts, over crew's own. */
	#piCrewContext(ctx: WorkflowContext) {
		const { store, run, files, lease } = this.#deps;
		const mailbox = new ScriptMailbox({
			store,
			lease,
			write: (fn) => this.#write(fn),
			now: this.#deps.now,
			value: (key, kind, make) => this.#value(kind, make, key),
			signal: this.#abort.signal,
			gathered: this.#gathered,
		});
		return piCrewContext({
			ctx,
			call: (input) => this.#call(input),
			mail: (to, body) => {
				const name = this.#scope().nextMail();
				this.#checkOpen();
				return mailbox.mail(name, to, body);
			},
			gather: (ids, deadlineMs) => {
				const key = this.#scope().nextValue();
				this.#checkOpen();
				return mailbox.gather(key, ids, deadlineMs);
			},
			template: (name, variables) => {
				const workflow = this.#deps.workflow(name);
				if (workflow.script) {
					throw new CrewError(
						ErrorCode.InvalidInput,
						`ctx.renderTemplate: workflow ${name} is a script, with no steps to render`,
					);
				}
				return renderPlan(workflow, variables);
			},
			task: (id) => {
				const task = store.queries.findTask(run.id, id);
				const took = task.startedAt && task.finishedAt ? Date.parse(task.finishedAt) - Date.parse(task.startedAt) : 0;
				const text = this.#resultText(id);
				return { text, usage: task.usage, durationMs: took, artifactPath: files.path(run.id, `tasks/${id}/result.md`) };
			},
		});
	}

	async #agent(input: unknown): Promise<unknown> {
		return await this.#call(input).answer;
	}

	/** Makes `ctx.agent` call `input` at its place: its task's id, and its answer to come. */
	#call(input: unknown): { id: string; answer: Promise<unknown> } {
		const scope = this.#scope();
		const key = scope.nextCall();
		this.#checkOpen();
		const call = parseCall(input, key);
		const { script, run, runtimes } = this.#deps;
		const agent = script.roles[call.role];
		if (!agent) {
			const roles = Object.keys(script.roles).join(", ") || "none";
			throw new CrewError(
				ErrorCode.NotFound,
				`ctx.agent call ${key}: no role '${call.role}'${run.team ? ` in team ${run.team}` : " (without a team, roles are agent names)"}; roles: ${roles}`,
			);
		}
		const runtime = run.options.runtime ?? agent.runtime;
		if (!runtimes.has(runtime)) {
			throw new CrewError(
				ErrorCode.InvalidResource,
				`ctx.agent call ${key}: agent '${agent.name}' uses runtime '${runtime}', which is not available (available: ${runtimes.names().join(", ")})`,
			);
		}
		if (call.worktree && !run.options.baseCommit) {
			throw new CrewError(
				ErrorCode.InvalidInput,
				`ctx.agent call ${key}: worktree needs the run to start in a git repository with a commit`,
			);
		}
		const schema =
			call.schema === undefined ? undefined : valueSchema(call.schema, `the schema of ctx.agent call ${key}`);
		const inputs = this.#recorded.has(key) ? [] : readInputs(call.inputs ?? [], run.options.cwd);
		// A recorded call keeps the specs it was given when first made.
		this.#specs ??= new SpecFreezer(run.options.cwd);
		const specs = this.#recorded.has(key) ? undefined : callSpecs(call, key, this.#specs);
		const spec = callTask(key, scope, call, agent, schema, run.goal, run.options.script?.model, inputs, specs);
		const recorded = this.#recorded.get(key);
		if (recorded && recorded.call?.fingerprint !== spec.call?.fingerprint) {
			// A pi-crew call recorded before crew honoured its maxTurns and skill was made without them.
			const { maxTurns: _t, skills: _s, ...before } = call;
			const earlier = callTask(key, scope, before, agent, schema, run.goal, run.options.script?.model, inputs);
			if (recorded.call?.fingerprint !== earlier.call?.fingerprint) {
				throw divergence(key, describeCall(recorded), describeCall(spec));
			}
		}
		const id = recorded?.id ?? spec.id;
		if (recorded) {
			this.#replayed.add(key);
			this.#claimed.push(id);
		} else {
			this.#added.push(spec);
			this.#known.set(id, { status: TaskStatus.Queued, error: null });
		}
		this.#wanted.add(id);
		scope.after = [id];
		if (schema) this.#schemas.set(id, schema);
		const known = this.#known.get(id);
		if (known?.status === TaskStatus.Completed || known?.status === TaskStatus.Failed) {
			return { id, answer: Promise.resolve().then(() => this.#answer(id)) };
		}
		this.#control?.wake();
		const answer = new Promise((resolve, reject) => {
			this.#waiters.set(id, [...(this.#waiters.get(id) ?? []), { resolve, reject }]);
		});
		return { id, answer };
	}

	/** A call's outcome: the answer (parsed, with a schema), or the error of a call that did not complete. */
	#answer(taskId: string): unknown {
		const known = this.#known.get(taskId);
		if (known?.status !== TaskStatus.Completed) {
			const how = known?.status ?? "lost";
			throw new CrewError(
				ErrorCode.CallFailed,
				`task ${taskId} ${how === TaskStatus.Failed ? "failed" : `ended ${how}`}${known?.error ? `: ${known.error}` : ""} (crew retry ${this.#deps.run.id} ${taskId} runs it again)`,
			);
		}
		const text = this.#resultText(taskId);
		const schema = this.#schemas.get(taskId);
		return schema ? schemaAnswer(taskId, text, schema) : text;
	}

	#resultText(taskId: string): string {
		try {
			return this.#deps.files.read(this.#deps.run.id, `tasks/${taskId}/result.md`);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
			throw error;
		}
	}

	#value(kind: string, make: () => number, key = this.#scope().nextValue()): number {
		const recorded = this.#values.get(key);
		if (recorded && recorded.kind !== kind) throw divergence(key, `ctx.${recorded.kind}()`, `ctx.${kind}()`);
		if (recorded) return recorded.value;
		const value = make();
		this.#write(() => this.#deps.store.appendEvent(this.#deps.lease, VALUE_EVENT, null, { key, kind, value }));
		this.#values.set(key, { kind, value });
		return value;
	}

	#note(key: string, type: string, data: Record<string, unknown>): void {
		if (this.#notes.has(key)) return;
		this.#write(() => this.#deps.store.appendEvent(this.#deps.lease, type, null, { key, ...data }));
		this.#notes.add(key);
	}

	#checkOpen(): void {
		if (this.#abort.signal.aborted) throw this.#abort.signal.reason;
		if (this.#outcome)
			throw new CrewError(
				ErrorCode.Conflict,
				"the workflow script has already ended; await its calls before returning",
			);
	}

	/** Every recorded call must have been made again: a replay that skips one is diverged too. */
	#checkAllReplayed(): void {
		for (const [key, spec] of this.#recorded) {
			if (!this.#replayed.has(key)) throw divergence(key, describeCall(spec), "no call");
		}
	}
}
