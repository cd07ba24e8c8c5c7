// The types of npm-metadata.mjs, a script Node runs as it is (test/node22.mjs loads it before any build).

export function userNpmCache(): string;
export function ensureRegistryMetadata(): boolean;

declare module "vitest" {
	export interface ProvidedContext {
		/** Whether npm's cache holds what an offline install of crew's tarball needs (test-tools.mjs). */
		npmInstallsOffline: boolean;
	}
}
