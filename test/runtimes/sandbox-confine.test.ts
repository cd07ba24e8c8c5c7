// @module-tag node22
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
	bwrapArgs,
	confine,
	findBwrap,
	findSocat,
	type SandboxSpec,
	secretPaths,
} from "../../src/runtimes/sandbox/confine.js";

/**
 * Real bubblewrap confining real processes. The folders are under the test's temporary folder,
 * which is outside /tmp: a confined process gets a /tmp of its own, so what is under the host's /tmp would be out of its sight anyway.
 */
const bwrap = findBwrap();
let base: string;
let workspace: string;
let home: string;
let server: Server;
let port: number;

beforeAll(async () => {
	expect(bwrap, "bubblewrap (bwrap) must be on PATH: apt-get install bubblewrap").not.toBeNull();
	base = mkdtempSync(join(tmpdir(), "crew-sandbox-"));
	workspace = join(base, "ws");
	home = join(base, "home");
	mkdirSync(join(workspace, ".crew"), { recursive: true });
	writeFileSync(join(workspace, ".crew", "crew.db"), "the store");
	mkdirSync(join(home, ".ssh"), { recursive: true });
	writeFileSync(join(home, ".ssh", "id_test"), "PLANTED-SECRET");
	server = createServer((_request, response) => response.end("reached"));
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	port = (server.address() as AddressInfo).port;
});

afterAll(() => {
	server?.close();
	if (base) rmSync(base, { recursive: true, force: true });
});

function spec(overrides: Partial<SandboxSpec> = {}): SandboxSpec {
	return {
		workspace,
		readOnlyWorkspace: false,
		writable: [],
		readable: [],
		hidden: [...secretPaths(home), join(workspace, ".crew")],
		network: "host",
		...overrides,
	};
}

function sh(script: string, sandbox: SandboxSpec): Promise<{ code: number; stdout: string; stderr: string }> {
	const { file, args } = confine(bwrap, sandbox, { file: "sh", args: ["-c", script] });
	return new Promise((done) =>
		execFile(file, args, { cwd: workspace, env: { ...process.env, HOME: home } }, (error, stdout, stderr) =>
			done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
		),
	);
}

test("a confined process writes its workspace and nothing beside it, and sees no secrets", async () => {
	const result = await sh(
		`echo mine > own.txt; echo escaped > ../outside.txt; echo escaped > "$HOME/x"; cat "$HOME/.ssh/id_test"; cat .crew/crew.db; echo end`,
		spec(),
	);
	expect(result.stdout).toContain("end");
	expect(readFileSync(join(workspace, "own.txt"), "utf8")).toBe("mine\n");
	expect(existsSync(join(base, "outside.txt"))).toBe(false);
	expect(existsSync(join(home, "x"))).toBe(false);
	expect(result.stderr).toMatch(/outside\.txt: Read-only file system/);
	expect(`${result.stdout}${result.stderr}`).not.toContain("PLANTED-SECRET");
	expect(`${result.stdout}${result.stderr}`).not.toContain("the store");
	expect(readFileSync(join(home, ".ssh", "id_test"), "utf8")).toBe("PLANTED-SECRET");
	expect(readFileSync(join(workspace, ".crew", "crew.db"), "utf8")).toBe("the store");
});

test("a read-only workspace refuses the process's writes", async () => {
	const result = await sh("echo no > refused.txt", spec({ readOnlyWorkspace: true }));
	expect(result.code).not.toBe(0);
	expect(result.stderr).toMatch(/refused\.txt: Read-only file system/);
	expect(existsSync(join(workspace, "refused.txt"))).toBe(false);
});

test("what is named below a hidden folder shows again: the attempt's files read-only, its worktree writable", async () => {
	const crewDir = join(base, "project", ".crew");
	const worktree = join(crewDir, "worktrees", "r", "t");
	const attemptFiles = join(crewDir, "runs", "r", "tasks", "t");
	mkdirSync(worktree, { recursive: true });
	mkdirSync(attemptFiles, { recursive: true });
	writeFileSync(join(crewDir, "crew.db"), "the store");
	writeFileSync(join(attemptFiles, "prompt.md"), "the prompt");
	const sandbox = spec({ workspace: worktree, readable: [attemptFiles], hidden: [crewDir] });
	const { file, args } = confine(bwrap, sandbox, {
		file: "sh",
		args: [
			"-c",
			`echo mine > own.txt; cat ${attemptFiles}/prompt.md; cat ${crewDir}/crew.db; echo no > ${attemptFiles}/x`,
		],
	});
	const result = await new Promise<{ stdout: string; stderr: string }>((done) =>
		execFile(file, args, (_error, stdout, stderr) => done({ stdout, stderr })),
	);
	expect(readFileSync(join(worktree, "own.txt"), "utf8")).toBe("mine\n");
	expect(result.stdout).toBe("the prompt");
	expect(result.stderr).toMatch(/crew\.db: No such file/);
	expect(result.stderr).toMatch(/x: Read-only file system/);
	expect(existsSync(join(attemptFiles, "x"))).toBe(false);
});

test("without a network a process reaches no server, with the host's it does", async () => {
	const fetchIt = `node -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log(t), e => { console.log('refused', e.cause?.code); })"`;
	expect((await sh(fetchIt, spec({ network: "none" }))).stdout).toMatch(/refused ECONNREFUSED/);
	expect((await sh(fetchIt, spec({ network: "host" }))).stdout).toContain("reached");
});

test("hidden files are covered by an empty one, hidden folders by an empty folder, after the writable ones", () => {
	const args = bwrapArgs(spec({ writable: [home] }), { file: "agent", args: ["--go"] });
	const hiddenFolder = args.indexOf(join(home, ".ssh"));
	expect(args.slice(hiddenFolder - 1, hiddenFolder + 1)).toEqual(["--tmpfs", join(home, ".ssh")]);
	expect(args.indexOf(home)).toBeLessThan(hiddenFolder);
	expect(args).not.toContain("--new-session");
	expect(args.slice(-3)).toEqual(["--", "agent", "--go"]);
	expect(bwrapArgs(spec({ hidden: [join(workspace, ".crew", "crew.db")] }), { file: "a", args: [] })).toEqual(
		expect.arrayContaining(["--ro-bind", "/dev/null", join(workspace, ".crew", "crew.db")]),
	);
});

test("a sandbox that cannot be had is refused, saying how to get one", () => {
	expect(() => confine(null, spec(), { file: "sh", args: [] })).toThrow(
		/apt-get install bubblewrap socat\).*sandbox level off/,
	);
});

test("socat is found as the first file of that name on PATH, when it may be run, without starting it", () => {
	const dir = (name: string) => mkdtempSync(join(tmpdir(), `crew-socat-${name}-`));
	const [plain, runnable, empty] = [dir("plain"), dir("runnable"), dir("empty")];
	writeFileSync(join(plain, "socat"), "not a program\n", { mode: 0o644 });
	// A program that would leave a mark, were it started.
	const mark = join(runnable, "started");
	writeFileSync(join(runnable, "socat"), `#!/bin/sh\ntouch ${mark}\n`, { mode: 0o755 });
	expect(findSocat(`${empty}:${runnable}`)).toBe(join(runnable, "socat"));
	expect(existsSync(mark)).toBe(false);
	expect(findSocat(`${plain}:${runnable}`)).toBeNull();
	expect(findSocat(empty)).toBeNull();
});
