// The parameters of crew's tools as JSON Schema for pi's tools, one tool covering several actions.

import { z } from "zod";
import type { ToolSpec } from "../mcp/tool-specs.js";

interface JsonSchema {
	readonly type?: string;
	readonly description?: string;
	readonly properties?: Readonly<Record<string, JsonSchema>>;
	readonly required?: readonly string[];
	readonly [key: string]: unknown;
}

/**
 * One tool's parameters for several of crew's tools at once: `action` names the tool (its name
 * without `crew_`), and each other parameter says which actions take it. Which parameters an
 * action needs is checked by crew when it is called, with crew's own error.
 */
export function actionParameters(specs: Readonly<Record<string, ToolSpec>>, extra: Record<string, JsonSchema> = {}) {
	const actions = Object.keys(specs).map(actionOf);
	const merged = new Map<string, { schema: JsonSchema; actions: string[] }>();
	for (const [name, spec] of Object.entries(specs)) {
		for (const [param, property] of Object.entries(jsonSchema(spec).properties ?? {})) {
			const entry = merged.get(param) ?? { schema: property, actions: [] };
			entry.actions.push(actionOf(name));
			merged.set(param, entry);
		}
	}
	const properties: Record<string, JsonSchema> = {
		action: { type: "string", enum: actions, description: "what to do" },
	};
	for (const [param, { schema, actions: takers }] of merged) {
		const said = schema.description ? `: ${schema.description}` : "";
		properties[param] = { ...schema, description: `${takers.join(", ")}${said}` };
	}
	return { type: "object", properties: { ...properties, ...extra }, required: ["action"] } as const;
}

/** The action a tool is: `crew_status` is `status`. */
export function actionOf(tool: string): string {
	return tool.replace(/^crew_/, "");
}

/** The parameters of one of crew's tools, as a host's tool schema. */
export function toolParameters(spec: ToolSpec, extra: Record<string, JsonSchema> = {}) {
	const { properties, required } = jsonSchema(spec);
	return { type: "object", properties: { ...properties, ...extra }, required: required ?? [] } as const;
}

/** A tool's input as plain JSON Schema, which every model provider accepts. */
function jsonSchema(spec: ToolSpec): JsonSchema {
	return z.toJSONSchema(z.object(spec.input), { io: "input" }) as JsonSchema;
}
