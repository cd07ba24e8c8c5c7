// A run's `--model` that pi cannot use is refused before anything starts, with the nearest models pi has.

import type { Settings } from "../../config/settings.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { editDistance } from "../../core/near-names.js";
import type { Plan } from "../../engine/planning/plan-input.js";
import { checkedRuntime } from "../../engine/planning/runtime-check.js";
import { piHas, piModels } from "../../runtimes/agent/cli-readiness.js";
import { piCustomModels } from "../../runtimes/agent/provider-hosts.js";
import { cliProgram } from "./cli-program.js";

/** `checkPiModel` of a run's `--model`, for the runtimes its tasks (or its script's roles) run on. */
export async function checkPlanModel(plan: Plan, model: string | undefined, settings: Settings): Promise<void> {
	const runtime = (agent: { readonly runtime: string }) => checkedRuntime(plan.options.runtime, agent.runtime);
	const roles = Object.values(plan.options.script?.roles ?? {});
	await checkPiModel(model, [...plan.tasks.map((t) => runtime(t.agent)), ...roles.map(runtime)], settings, process.env);
}

/** Models named when one given is not pi's. */
const NEAREST = 3;

/**
 * Refuses `model` when an agent of the run runs on pi (`runtimes`) and pi cannot use it: not in
 * pi's `models.json`, and not among the models `pi --list-models` says it has credentials for.
 * When pi lists none, or cannot be asked, it does not refuse: the run says why it fails, as pi
 * does.
 */
export async function checkPiModel(
	model: string | undefined,
	runtimes: Iterable<string>,
	settings: Settings | undefined,
	env: NodeJS.ProcessEnv,
): Promise<void> {
	if (model === undefined || ![...runtimes].includes("pi")) return;
	if (piHas(piCustomModels(env), model)) return;
	const listed = await piModels(cliProgram("pi", settings, env).command, env);
	if (typeof listed === "string" || listed.length === 0 || piHas(listed, model)) return;
	const nearest = [...listed]
		.sort((a, b) => editDistance(model, a) - editDistance(model, b) || a.localeCompare(b))
		.slice(0, NEAREST);
	throw new CrewError(
		ErrorCode.InvalidInput,
		`--model ${model}: pi has no such model it can use (pi --list-models lists ${listed.length}); the nearest: ${nearest.join(", ")}`,
	);
}
