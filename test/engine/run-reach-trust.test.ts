import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { projectAt } from "../../src/config/project.js";
import { TrustStore } from "../../src/config/trust.js";
import { Crew } from "../../src/engine/crew.js";
import { RuntimeRegistry } from "../../src/runtimes/runtime-registry.js";
import { TestRepo } from "../helpers.js";

/** A user resource folder (what `userDirs` names) holding a command planner that leaves a mark when it runs. */
function userDirWithPlanner(mark: string): string {
	const dir = mkdtempSync(join(tmpdir(), "crew-user-"));
	mkdirSync(join(dir, "agents"), { recursive: true });
	const plan = JSON.stringify({ phases: [{ name: "build", tasks: [{ role: "builder", task: "build it" }] }] });
	writeFileSync(
		join(dir, "agents", "planner.md"),
		`---\nname: planner\nruntime: command\ncommand: touch ${mark} && echo '${plan}'\n---\nYou plan.\n`,
	);
	return dir;
}

function crewOf(repo: TestRepo, options: { userDirs?: readonly string[]; trusted?: boolean } = {}): Crew {
	return new Crew({
		project: projectAt(repo.dir),
		runtimes: RuntimeRegistry.standard({ graceMs: 500 }),
		pollMs: 20,
		...(options.userDirs ? { userDirs: options.userDirs } : {}),
		...(options.trusted !== undefined ? { trusted: () => options.trusted as boolean } : {}),
	});
}

test("an adaptive plan whose team role is a project command agent is refused before anything runs, listing that agent", async () => {
	const repo = new TestRepo({ trusted: false });
	const mark = join(repo.dir, "planner-ran");
	repo.writeFile(
		".crew/agents/builder.md",
		"---\nname: builder\nruntime: command\ncommand: touch built.txt\n---\nYou build.\n",
	);
	repo.writeFile(
		".crew/teams/crew.team.md",
		"---\nname: crew\n---\n- planner: agent=planner\n- builder: agent=builder\n",
	);
	repo.workflow("adaptive", [{ id: "plan", role: "planner", extra: { expand: "plan" } }]);
	const crew = crewOf(repo, { userDirs: [userDirWithPlanner(mark)] });
	try {
		const plan = await crew.plan({ goal: "g", workflow: "adaptive", team: "crew" });
		expect(() => crew.create(plan)).toThrow(/is not trusted[\s\S]*agent 'builder' \(.*builder\.md\): touch built\.txt/);
		expect(crew.resources().findAgent("planner")?.layer).toBe("user");
	} finally {
		crew.close();
	}
	expect(existsSync(mark)).toBe(false);
	expect(repo.exists("built.txt")).toBe(false);
});

test("permissions: full in a project agent is listed and refused untrusted, and allowed once trusted", async () => {
	const repo = new TestRepo({ trusted: false });
	repo.writeFile(
		".crew/agents/root.md",
		"---\nname: root\nruntime: codex\npermissions: full\n---\nYou may do anything.\n",
	);
	repo.workflow("solo", [{ id: "go", role: "root" }]);
	const untrusted = crewOf(repo, { trusted: false });
	try {
		const plan = await untrusted.plan({ goal: "g", workflow: "solo" });
		expect(() => untrusted.create(plan)).toThrow(/is not trusted[\s\S]*agent 'root' \(.*root\.md\): permissions: full/);
	} finally {
		untrusted.close();
	}
	const trusted = crewOf(repo, { trusted: true });
	try {
		const plan = await trusted.plan({ goal: "g", workflow: "solo" });
		expect(trusted.create(plan)).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
	} finally {
		trusted.close();
	}
});

test("a run created while trusted is refused on resume and retry once the trust is revoked, listing what it would run", async () => {
	const repo = new TestRepo();
	repo.writeFile(
		".crew/agents/flaky.md",
		"---\nname: flaky\nruntime: command\ncommand: echo attempt >> attempts.txt && exit 1\n---\n",
	);
	repo.workflow("once", [{ id: "go", role: "flaky", extra: { retries: "0" } }]);
	const first = crewOf(repo);
	let runId: string;
	try {
		runId = first.create(await first.plan({ goal: "g", workflow: "once" }));
		expect(await first.execute(runId)).toBe("failed");
	} finally {
		first.close();
	}
	expect(new TrustStore().revoke(repo.dir)).toBe(true);
	const later = crewOf(repo);
	try {
		const refusal = /is not trusted[\s\S]*agent 'flaky' \(.*flaky\.md\): echo attempt >> attempts\.txt && exit 1/;
		await expect(later.execute(runId)).rejects.toThrow(refusal);
		await expect(later.retry(runId, "go")).rejects.toThrow(refusal);
		expect(later.run(runId).status).toBe("failed");
	} finally {
		later.close();
	}
	const { readFileSync } = await import("node:fs");
	expect(readFileSync(join(repo.dir, "attempts.txt"), "utf8")).toBe("attempt\n");
});

test("pi extensions a project agent names are listed and refused untrusted: they are code pi runs", async () => {
	const repo = new TestRepo({ trusted: false });
	repo.writeFile(".crew/agents/ext.md", "---\nname: ext\nruntime: pi\nextensions: ./tools/x.ts\n---\nYou help.\n");
	repo.workflow("solo", [{ id: "go", role: "ext" }]);
	const untrusted = crewOf(repo, { trusted: false });
	try {
		const plan = await untrusted.plan({ goal: "g", workflow: "solo" });
		expect(() => untrusted.create(plan)).toThrow(
			/is not trusted[\s\S]*agent 'ext' \(.*ext\.md\): extensions: \.\/tools\/x\.ts/,
		);
	} finally {
		untrusted.close();
	}
});
