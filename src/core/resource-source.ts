/** The file a resource was read from, and its layer: what decides whether it needs the user's trust. */
export interface ResourceSource {
	readonly layer: "builtin" | "user" | "project";
	readonly file: string;
}
