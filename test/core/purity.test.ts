import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../helpers.js";

test("core has no node: imports and imports nothing outside core", () => {
	const dir = join(ROOT, "src", "core");
	const offenders: string[] = [];
	for (const file of readdirSync(dir)) {
		const text = readFileSync(join(dir, file), "utf8");
		for (const match of text.matchAll(/from\s+["']([^"']+)["']/g)) {
			const target = match[1] ?? "";
			if (!target.startsWith("./")) offenders.push(`${file} imports ${target}`);
		}
	}
	expect(offenders).toEqual([]);
});

test("imports point inward: lower layers never import adapters or the engine", () => {
	const lower = ["core", "store", "resources", "runtimes", "config", "workspace"];
	const offenders: string[] = [];
	for (const layer of lower) {
		const dir = join(ROOT, "src", layer);
		for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))) {
			const text = readFileSync(join(dir, file), "utf8");
			if (/from\s+["'](\.\.\/)+(engine|adapters)\//.test(text)) offenders.push(`${layer}/${file}`);
		}
	}
	expect(offenders).toEqual([]);
});

test("the engine never starts processes itself", () => {
	const dir = join(ROOT, "src", "engine");
	const offenders = readdirSync(dir, { recursive: true, encoding: "utf8" })
		.filter((file) => file.endsWith(".ts"))
		.filter((file) => readFileSync(join(dir, file), "utf8").includes("node:child_process"));
	expect(offenders).toEqual([]);
});
