// @module-tag agent-cli
// @slow: npm installs from a local registry six times, by command agents and a real pi agent, each confined by bubblewrap
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { developers, filesUnder } from "./developer.js";
import { nodeProject, PAD, userNpmCache } from "./project.js";
import { LocalRegistry } from "./registry.js";

/** npm in the default sandbox: installs from a registry the developer allows and a tarball, tests, and a second install from crew's cache. */
const developer = developers();
const registries: LocalRegistry[] = [];
afterEach(async () => {
	for (const registry of registries.splice(0)) await registry.close();
});

async function setUp() {
	const dev = developer();
	const registry = await LocalRegistry.start([PAD]);
	registries.push(registry);
	dev.config({ sandbox: { hosts: [`127.0.0.1:${registry.port}`] } });
	nodeProject(dev, registry.url);
	const cache = userNpmCache(dev.home);
	return { dev, registry, cache, before: filesUnder(cache) };
}

/** The caches the task's latest attempt had, as `crew status --json` tells. */
async function cachesOf(dev: Awaited<ReturnType<typeof setUp>>["dev"]): Promise<{ folder: string; tools: string[] }> {
	const status = JSON.parse((await dev.crew(["status", "--json"])).stdout);
	return status.tasks[0].sandbox.caches;
}

test("a command agent installs from a registry on 127.0.0.1 and a tarball, runs the tests, and installs again from crew's cache", async () => {
	const { dev, registry, cache, before } = await setUp();
	const first = await dev.command("install and test", "npm install --no-audit --no-fund && npm test");
	expect(first.stdout).toContain("tests passed");
	expect(registry.tarballsServed).toEqual([`/${PAD.name}/-/${PAD.name}-${PAD.version}.tgz`]);
	const caches = await cachesOf(dev);
	expect(caches.tools).toContain("npm");
	expect(existsSync(join(caches.folder, "npm", "_cacache"))).toBe(true);

	const second = await dev.command(
		"install again",
		"rm -rf node_modules && npm install --no-audit --no-fund && npm test",
	);
	expect(second.stdout).toContain("tests passed");
	// The tarball came from crew's cache: the registry served it once.
	expect(registry.tarballsServed).toHaveLength(1);
	expect(filesUnder(cache)).toEqual(before);
	expect(readFileSync(join(dev.repo, "node_modules", PAD.name, "index.js"), "utf8")).toBe(PAD.files["index.js"]);
});

test("a pi agent installs and tests in the default sandbox, and its second install comes from crew's cache", async () => {
	const { dev, registry, cache, before } = await setUp();
	const first = await dev.agent(["npm install --no-audit --no-fund && npm test"]);
	await dev.expectDone("pi: install and test", first.result);
	expect(first.seen).toContain("tests passed");
	expect(registry.tarballsServed).toHaveLength(1);

	const second = await dev.agent(["rm -rf node_modules && npm install --no-audit --no-fund && npm test"]);
	await dev.expectDone("pi: install again", second.result);
	expect(second.seen).toContain("tests passed");
	expect(registry.tarballsServed).toHaveLength(1);
	expect((await cachesOf(dev)).tools).toContain("npm");
	expect(filesUnder(cache)).toEqual(before);
});

test("at strict, a command reaches the registry the developer allows through crew's gate; one not allowed is refused, naming the setting that allows it", async () => {
	const { dev, registry } = await setUp();
	const install = "npm install --no-audit --no-fund --fetch-retries 0 && npm test";
	const allowed = await dev.command("install at strict", install, { sandbox: "strict" });
	expect(allowed.stdout).toContain("tests passed");
	const status = JSON.parse((await dev.crew(["status", "--json"])).stdout);
	expect(status.tasks[0].sandbox.network).toEqual([`127.0.0.1:${registry.port}`]);

	dev.config({});
	const refused = await dev.command("install unallowed", `rm -rf node_modules; ${install}`, {
		sandbox: "strict",
		failing: true,
	});
	expect(refused.code).not.toBe(0);
	const hint = `the sandbox refused a connection to 127.0.0.1:${registry.port} (to allow it, add "sandbox": {"hosts": ["127.0.0.1:${registry.port}"]} to your user config.json)`;
	expect(JSON.parse(refused.stdout.trim().split("\n").at(-1) as string).error).toContain(hint);
	expect((await dev.crew(["status"])).stdout).toContain(hint);
});
