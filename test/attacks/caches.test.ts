// @module-tag agent-cli
// @slow: a real pi agent writes into every cache it can name, and the user installs with npm before and after
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, expect, test } from "vitest";
import { filesUnder } from "../honest/developer.js";
import { nodeProject, PAD } from "../honest/project.js";
import { LocalRegistry } from "../honest/registry.js";
import { SECRET, victims } from "./attacker.js";

/** An agent that poisons every package cache it can reach, so that the user's next install, unconfined, runs its code. */
const victim = victims();
const registries: LocalRegistry[] = [];
afterEach(async () => {
	for (const registry of registries.splice(0)) await registry.close();
});

/** The user's own caches of each toolchain crew moves, as they are after earlier work. */
const USER_CACHES = [
	".npm",
	".cache/pip",
	".cache/pnpm",
	".cache/yarn",
	".yarn/berry",
	".cargo/registry",
	"go/pkg/mod",
	".m2/repository",
	".gradle/caches",
	".local/share/pnpm",
];

const POISON = [
	// A package of the same name and version, with code of the attacker's.
	"mkdir -p /tmp/evil/package",
	`printf '{"name":"${PAD.name}","version":"${PAD.version}","main":"index.js"}' > /tmp/evil/package/package.json`,
	"printf 'module.exports = () => \"POISONED\";' > /tmp/evil/package/index.js",
	"tar -czf /tmp/evil.tgz -C /tmp/evil package",
	"npm cache add /tmp/evil.tgz",
	'npm cache add --cache "$HOME/.npm" /tmp/evil.tgz',
	// Every cache folder it can name, the user's and whatever its variables point to.
	`for d in ${USER_CACHES.map((c) => `"$HOME/${c}"`).join(" ")} "$npm_config_cache" "$XDG_CACHE_HOME" "$XDG_DATA_HOME" "$PIP_CACHE_DIR" "$CARGO_HOME" "$GOMODCACHE" "$GRADLE_USER_HOME"; do mkdir -p "$d" && echo POISON > "$d/poison"; done`,
	// And every file already in the user's npm cache.
	`find "$HOME/.npm" -type f -exec sh -c 'echo POISON > "$1"' _ {} \\;`,
].map((line) => `${line} 2>&1`);

test("an agent that writes a poisoned package into every cache it can reach does not reach the user's next npm install", async () => {
	const v = victim();
	const registry = await LocalRegistry.start([PAD]);
	registries.push(registry);
	nodeProject(v, registry.url);
	// Not a synchronous call: the registry answers from this very process.
	const npm = (args: readonly string[]) =>
		promisify(execFile)("npm", [...args, "--no-audit", "--no-fund"], { cwd: v.repo, env: v.env });
	// The user's own install, outside crew, leaves the genuine package in their cache.
	await npm(["install"]);
	for (const cache of USER_CACHES) mkdirSync(join(v.home, cache), { recursive: true });
	const before = Object.fromEntries(USER_CACHES.map((cache) => [cache, filesUnder(join(v.home, cache))]));

	const { result, seen } = await v.agent([`${POISON.join("; ")}; echo tried`]);
	expect(result.code).toBe(0);
	expect(seen).toContain("tried");
	// It wrote where it could, crew's caches of this repository, and was refused the user's.
	const status = JSON.parse((await v.crew(["status", "--json"])).stdout);
	const { folder } = status.tasks[0].sandbox.caches;
	expect(readFileSync(join(folder, "npm", "poison"), "utf8")).toBe("POISON\n");
	expect(seen).toMatch(/Read-only file system|EROFS/);

	for (const cache of USER_CACHES) expect(filesUnder(join(v.home, cache)), cache).toEqual(before[cache]);
	rmSync(join(v.repo, "node_modules"), { recursive: true });
	await npm(["install"]);
	expect(readFileSync(join(v.repo, "node_modules", PAD.name, "index.js"), "utf8")).toBe(PAD.files["index.js"]);
});

test("an agent cannot read or write the caches crew keeps for another repository", async () => {
	const v = victim();
	const other = join(v.home, ".cache", "crew", "toolchains", "other-0123456789ab", "npm");
	mkdirSync(other, { recursive: true });
	writeFileSync(join(other, "entry"), `token = ${SECRET}\n`);
	const before = filesUnder(join(v.home, ".cache", "crew", "toolchains", "other-0123456789ab"));
	const root = "$HOME/.cache/crew/toolchains";
	const { result, seen } = await v.agent([
		`ls -a ${root}; cat ${root}/other-*/npm/entry; echo POISON > ${root}/other-0123456789ab/npm/poison; ls -a ${root}/*/; echo tried`,
	]);
	expect(result.code).toBe(0);
	expect(seen).toContain("tried");
	expect(seen).not.toContain(SECRET);
	expect(filesUnder(join(v.home, ".cache", "crew", "toolchains", "other-0123456789ab"))).toEqual(before);
});
