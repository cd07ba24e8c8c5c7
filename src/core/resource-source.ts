// The file and layer a resource was read from, which decide whether it needs the user's trust.

/** The file a resource was read from, and its layer: what decides whether it needs the user's trust. */
export interface ResourceSource {
	readonly layer: "builtin" | "user" | "project";
	readonly file: string;
}
