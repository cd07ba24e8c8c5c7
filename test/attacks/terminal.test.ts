// @module-tag agent-cli
// @slow: a real pi agent on the scripted model whose answers and errors carry control sequences, through crew agent and crew mcp
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { mcpClient } from "../helpers.js";
import { victims } from "./attacker.js";

/**
 * An agent, or a repository's files, writing to the user's terminal through crew's views: a
 * clipboard write (OSC 52), a window title, the cursor moved up and lines erased to hide what ran.
 */
const victim = victims();

const SEQUENCES = "\x1b]52;c;cGF3bmVk\x07\x1b]0;pwned\x07\x1b[1A\x1b[2K\r\x9b2J";

/** Every C0 control character but tab and newline, and every C1 one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function expectInert(label: string, text: string): void {
	expect(CONTROL.exec(text)?.[0], label).toBeUndefined();
}

test("an agent's answer and what its commands print reach no terminal as control sequences", async () => {
	const v = victim();
	const { result } = await v.agent([
		`printf '${SEQUENCES.replaceAll("\x1b", "\\033").replaceAll("\x07", "\\007").replaceAll("\x9b", "\\302\\233").replaceAll("\r", "\\r")}'; echo printed`,
		{ kind: "text", text: `all done ${SEQUENCES}` },
	]);
	expectInert("crew agent", `${result.stdout}${result.stderr}`);
	const [run] = JSON.parse((await v.crew(["runs", "--json"])).stdout) as { id: string }[];
	const runId = run?.id as string;
	expect(runId).toMatch(/^\d{8}-/);
	const task = JSON.parse((await v.crew(["status", runId, "--json"])).stdout).tasks[0].id as string;
	const views = [["status"], ["status", runId], ["runs"], ["result", runId], ["logs", runId, task], ["events", runId]];
	for (const args of views) {
		const shown = await v.crew(args);
		expect(shown.code, args.join(" ")).toBe(0);
		expectInert(args.join(" "), `${shown.stdout}${shown.stderr}`);
	}
	// For a program to read, as written.
	expect((await v.crew(["logs", runId, task, "--raw"])).stdout).toContain("\x1b]52;c;");
	// What an MCP client prints of its answers and errors.
	const { client } = await mcpClient(v.repo, v.env);
	try {
		const calls = [
			["crew_status", { runId }],
			["crew_result", { runId, task }],
			["crew_result", { runId, task: `x${SEQUENCES}` }],
		] as const;
		for (const [name, args] of calls) {
			const answer = await client.callTool({ name, arguments: args });
			const text = (answer.content as { text: string }[])[0]?.text ?? "";
			expect(text.length, name).toBeGreaterThan(0);
			expectInert(`${name} ${JSON.stringify(args)}`, text);
		}
	} finally {
		await client.close();
	}
});

test("a model's error that carries control sequences is shown inert", async () => {
	const v = victim();
	const { result } = await v.agent([{ kind: "error", status: 400, message: `bad request ${SEQUENCES}` }]);
	expect(result.code).not.toBe(0);
	expectInert("crew agent", `${result.stdout}${result.stderr}`);
	for (const args of [["status"], ["runs"], ["inbox"]]) {
		const shown = await v.crew(args);
		expectInert(args.join(" "), `${shown.stdout}${shown.stderr}`);
	}
});

test("a repository's agent description with control sequences is listed inert", async () => {
	const v = victim();
	mkdirSync(join(v.repo, ".crew", "agents"), { recursive: true });
	writeFileSync(
		join(v.repo, ".crew", "agents", "x.md"),
		`---\nname: x\ndescription: helper ${SEQUENCES}\n---\nYou help.\n`,
	);
	for (const args of [["list", "agents"], ["show", "agent", "x"], ["validate"]]) {
		const shown = await v.crew(args);
		expectInert(args.join(" "), `${shown.stdout}${shown.stderr}`);
	}
});
