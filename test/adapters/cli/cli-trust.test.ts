import { expect, test } from "vitest";
import { crew, TestRepo } from "../../helpers.js";

/** A repository whose own files define a command agent and a verify command. */
function untrustedRepo(): TestRepo {
	const repo = new TestRepo({ trusted: false });
	repo.writeFile(
		".crew/agents/tester.md",
		"---\nname: tester\nruntime: command\ncommand: touch ran.txt && echo ran\n---\n",
	);
	repo.workflow("check", [{ id: "test", role: "tester", extra: { verify: "test -f ran.txt" } }]);
	return repo;
}

test("an untrusted repository's commands never run: the run is refused, listing exactly what would run", async () => {
	const repo = untrustedRepo();
	const run = await crew(repo.dir, ["run", "g", "--workflow", "check"]);
	expect(run.code).toBe(1);
	expect(run.stderr).toContain("is not trusted, so crew runs none of the commands its own files define");
	expect(run.stderr).toMatch(/ {2}agent 'tester' \(.*tester\.md\): touch ran\.txt && echo ran\n/);
	expect(run.stderr).toMatch(/ {2}the check of step 'test' \(.*check\.workflow\.md\): test -f ran\.txt\n/);
	expect(run.stderr).toContain("run `crew trust` in this repository");
	expect((await crew(repo.dir, ["runs", "--json"])).stdout.trim()).toBe("[]");
	expect(repo.exists("ran.txt")).toBe(false);

	// A dry run starts no command, so it needs no trust.
	expect((await crew(repo.dir, ["run", "g", "--workflow", "check", "--runtime", "dry-run"])).code).toBe(0);
	expect(repo.exists("ran.txt")).toBe(false);
});

test("crew trust lets the repository's commands run; --list shows it; --revoke takes it back", async () => {
	const repo = untrustedRepo();
	const trust = await crew(repo.dir, ["trust"]);
	expect(trust.code).toBe(0);
	expect(trust.stdout).toMatch(/^trusted: /);
	expect((await crew(repo.dir, ["trust", "--list"])).stdout).toContain(repo.dir);
	const run = await crew(repo.dir, ["run", "g", "--workflow", "check"]);
	expect(run.code).toBe(0);
	expect(repo.exists("ran.txt")).toBe(true);

	expect((await crew(repo.dir, ["trust", "--revoke"])).stdout).toMatch(/^no longer trusted: /);
	expect((await crew(repo.dir, ["trust", "--list"])).stdout).not.toContain(repo.dir);
	expect((await crew(repo.dir, ["run", "g", "--workflow", "check"])).code).toBe(1);
});
