import { execFile, execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { gitRepo, ROOT, type TestRepo, waitFor } from "../../helpers.js";

/**
 * crew as a user has it: the files `npm pack` puts in the package, in a node_modules/crew of its
 * own outside this repository, with crew's dependencies beside it. Its bundle must find crew's
 * own files (package.json, builtin/, dashboard/, bin/) there, as it does in the repository.
 */
const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
	version: string;
	dependencies: Record<string, string>;
};
let temp: string;
let bin: string;
let repo: TestRepo;

beforeAll(async () => {
	temp = mkdtempSync(join(tmpdir(), "crew-installed-"));
	const modules = join(temp, "node_modules");
	const installed = join(modules, "crew");
	const packed = JSON.parse(
		execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" }),
	) as { files: { path: string }[] }[];
	for (const { path } of packed[0]?.files ?? []) {
		mkdirSync(dirname(join(installed, path)), { recursive: true });
		cpSync(join(ROOT, path), join(installed, path));
	}
	for (const name of Object.keys(pkg.dependencies)) {
		mkdirSync(dirname(join(modules, name)), { recursive: true });
		symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
	}
	bin = join(installed, "bin", "crew.js");
	repo = gitRepo();
}, 60_000);

afterAll(() => {
	rmSync(temp, { recursive: true, force: true });
	if (repo) rmSync(repo.dir, { recursive: true, force: true });
});

test("an installed crew prints its package's version", async () => {
	const { stdout } = await run(process.execPath, [bin, "--version"], { cwd: repo.dir });
	expect(stdout).toBe(`${pkg.version}\n`);
});

test("an installed crew runs a builtin workflow", async () => {
	const { stdout } = await run(
		process.execPath,
		[bin, "run", "a goal", "--workflow", "fast-fix", "--runtime", "dry-run", "--json"],
		{ cwd: repo.dir },
	);
	expect(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}")).toMatchObject({ status: "completed" });
});

test("an installed crew serves its dashboard", async () => {
	const server = spawn(process.execPath, [bin, "serve", "--port", "0"], {
		cwd: repo.dir,
		stdio: ["ignore", "pipe", "pipe"],
	});
	try {
		let out = "";
		server.stdout?.on("data", (chunk: Buffer) => {
			out += chunk.toString();
		});
		const url = await waitFor(
			"the dashboard URL",
			() => /dashboard\s+(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out)?.[1],
		);
		const page = await fetch(url);
		expect(page.status).toBe(200);
		expect(await page.text()).toMatch(/<html/i);
		const script = await fetch(new URL("/assets/app.js", url));
		expect(script.status).toBe(200);
	} finally {
		server.kill("SIGTERM");
	}
});
