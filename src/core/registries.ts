// The package registries a user may let confined tasks reach by name, and the setting that allows a host.

import { hostPortText } from "./sandbox-level.js";

/**
 * Each ecosystem's public registries, as `host:port`: what its tools fetch packages from by
 * default. A user names the ecosystems in `"sandbox": {"registries": [...]}`; a mirror of their
 * own goes in `"hosts"`.
 */
export const REGISTRIES: Readonly<Record<string, readonly string[]>> = {
	npm: ["registry.npmjs.org:443"],
	yarn: ["registry.yarnpkg.com:443", "repo.yarnpkg.com:443"],
	pypi: ["pypi.org:443", "files.pythonhosted.org:443"],
	crates: ["index.crates.io:443", "static.crates.io:443", "crates.io:443"],
	go: ["proxy.golang.org:443", "sum.golang.org:443"],
	maven: ["repo.maven.apache.org:443", "repo1.maven.org:443"],
	gradle: ["plugins.gradle.org:443", "services.gradle.org:443", "downloads.gradle.org:443"],
};

/** The hosts of the registries `names` names (an unknown name, refused where it was read, adds none). */
export function registryHosts(names: readonly string[]): string[] {
	return names.flatMap((name) => REGISTRIES[name] ?? []);
}

/** How a user lets confined tasks reach `host`: the registry that lists it, else the host itself. */
export function allowHint(host: { readonly host: string; readonly port?: number }): string {
	const named = host.port === undefined ? undefined : hostPortText({ host: host.host, port: host.port });
	const registry = Object.entries(REGISTRIES).find(([, hosts]) =>
		hosts.some((h) => h === named || (named === undefined && h.startsWith(`${host.host}:`))),
	)?.[0];
	const setting = registry
		? `"sandbox": {"registries": ["${registry}"]}`
		: `"sandbox": {"hosts": ["${named ?? `${host.host}:443`}"]}`;
	return `to allow it, add ${setting} to your user config.json`;
}
