// The kinds of resource and the layers they come from, as every part of the resource loader names them.

export type ResourceKind = "agent" | "team" | "workflow";

/** Where resources come from, from weakest to strongest, except that a project never replaces. */
export type LayerName = "builtin" | "user" | "project";

/** A folder holding `agents/`, `teams/` and `workflows/` of one layer. */
export interface ResourceLayer {
	readonly layer: LayerName;
	readonly dir: string;
}
