import { afterEach, beforeAll, expect, test } from "vitest";
import { CLI, crew, failingPi, TestRepo, waitFor } from "../../helpers.js";
import { Terminal } from "../../terminal.js";

const HEADERS = ["TASK", "ROLE", "AGENT", "STATUS", "RUNTIME", "TIME", "TOKENS", "COST", "ACTIVITY"];
const repo = new TestRepo();
let runId = "";
const terminals: Terminal[] = [];
afterEach(() => {
	for (const terminal of terminals.splice(0)) terminal.close();
});

beforeAll(async () => {
	repo.writeFile(".crew/agents/failer.md", "---\nname: failer\nruntime: pi\nsandbox: off\n---\n");
	repo.workflow("one", [{ id: "write-the-parser", role: "failer", text: "do it" }]);
	const env = { ...process.env, CREW_PI: failingPi() };
	const run = await crew(repo.dir, ["run", "parse it", "--workflow", "one", "--json"], 60_000, env);
	runId = (JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as { runId: string }).runId;
	expect(runId, run.stderr).toMatch(/^\d{8}-/);
});

/** The header line and the task's line of `crew watch` on a terminal `columns` wide. */
async function watchedAt(columns: number): Promise<{ header: string; row: string }> {
	const terminal = new Terminal(repo.dir, `${process.execPath} ${CLI} watch ${runId}; sleep 60`, { columns, rows: 20 });
	terminals.push(terminal);
	const screen = await waitFor("the watch frame", () => {
		const s = terminal.screen();
		return s.includes("write-the-parser") && s;
	});
	const lines = screen.split("\n");
	return {
		header: lines.find((line) => line.trimStart().startsWith("TASK ")) ?? "",
		row: lines.find((line) => line.trimStart().startsWith("write-the-parser ")) ?? "",
	};
}

/** Each header's column, by name, as the header line shows them; every word there must be a whole header. */
function columnsOf(header: string): Map<string, number> {
	const columns = new Map<string, number>();
	for (const match of header.matchAll(/\S+/g)) {
		expect(HEADERS, `a cut or unknown header in ${JSON.stringify(header)}`).toContain(match[0]);
		columns.set(match[0], match.index);
	}
	return columns;
}

/** The task's value under each header: from its column to the next header's. */
function valuesOf(header: string, row: string): Map<string, string> {
	const columns = [...columnsOf(header)];
	return new Map(columns.map(([name, at], i) => [name, row.slice(at, columns[i + 1]?.[1]).trimEnd()]));
}

test.each([80, 200])("crew watch at %i columns starts each value at its header's column", async (columns) => {
	const { header, row } = await watchedAt(columns);
	const shown = columnsOf(header);
	for (const name of ["TASK", "STATUS", "ACTIVITY"]) expect([...shown.keys()], header).toContain(name);
	if (columns >= 200) expect([...shown.keys()]).toEqual(HEADERS);
	for (const [name, at] of shown) {
		expect(row.charAt(at - 1), `${name} in\n${header}\n${row}`).toBe(" ");
		expect(row.charAt(at), `${name} in\n${header}\n${row}`).not.toBe(" ");
	}
	expect(header.length).toBeLessThanOrEqual(columns);
	expect(row.length).toBeLessThanOrEqual(columns);
});

test("crew watch's TOKENS column shows tokens only, whole, and COST the cost", async () => {
	const { header, row } = await watchedAt(200);
	const values = valuesOf(header, row);
	expect(values.get("TOKENS")).toBe("1.5k in, 18 out");
	expect(values.get("COST")).toBe("$0.0123");
	expect(values.get("STATUS")).toBe("failed");
	expect(values.get("ACTIVITY")).toContain("Error: no credit left");
});

test("crew watch without a terminal prints the run's final line after its last task's", async () => {
	const watch = await crew(repo.dir, ["watch", runId]);
	const lines = watch.stdout.trim().split("\n");
	expect(lines.at(-1), watch.stdout).toMatch(new RegExp(`run ${runId} failed`));
	expect(lines.filter((line) => line.includes(" write-the-parser failed"))).toHaveLength(1);
});
