import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { projectSkills, skillPath } from "../../src/runtimes/agent-skills.js";

test("only the project's own named skills are shown to a sandbox; a path, even one that exists, is not", () => {
	const root = mkdtempSync(join(tmpdir(), "crew-skills-"));
	const cwd = join(root, "repo");
	const skill = (dir: string) => {
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, "SKILL.md"), "---\nname: x\ndescription: d\n---\n");
	};
	skill(join(cwd, ".crew", "skills", "mine"));
	skill(join(root, "home", ".ssh"));
	skill(join(cwd, ".crew", "runs", "other"));
	const env = { HOME: join(root, "home") };
	const named = ["mine", "../home/.ssh", join(root, "home", ".ssh"), ".crew/runs/other", "missing"];
	expect(named.map((name) => skillPath(name, cwd, env))).toEqual([
		join(cwd, ".crew", "skills", "mine"),
		join(root, "home", ".ssh"),
		join(root, "home", ".ssh"),
		join(cwd, ".crew", "runs", "other"),
		undefined,
	]);
	expect(projectSkills({ skills: named }, cwd, env)).toEqual([join(cwd, ".crew", "skills", "mine")]);
});
