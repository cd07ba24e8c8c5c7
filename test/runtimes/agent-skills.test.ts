import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { projectSkills, skillPath } from "../../src/runtimes/agent/skills.js";

test("only the project's own named skills are shown to a sandbox; a path, even one that exists, or a link out of .crew/skills, is not", () => {
	const root = mkdtempSync(join(tmpdir(), "crew-skills-"));
	const cwd = join(root, "repo");
	const skill = (dir: string) => {
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, "SKILL.md"), "---\nname: x\ndescription: d\n---\n");
	};
	skill(join(cwd, ".crew", "skills", "mine"));
	skill(join(root, "home", ".ssh"));
	skill(join(cwd, ".crew", "runs", "other"));
	// A folder of skills that leads, by a link, to crew's store.
	skill(join(cwd, ".crew", "runs", "store"));
	symlinkSync(join(cwd, ".crew", "runs", "store"), join(cwd, ".crew", "skills", "linked"));
	const env = { HOME: join(root, "home") };
	const named = ["mine", "../home/.ssh", join(root, "home", ".ssh"), ".crew/runs/other", "missing", "linked"];
	expect(named.map((name) => skillPath(name, cwd, env))).toEqual([
		join(cwd, ".crew", "skills", "mine"),
		join(root, "home", ".ssh"),
		join(root, "home", ".ssh"),
		join(cwd, ".crew", "runs", "other"),
		undefined,
		join(cwd, ".crew", "skills", "linked"),
	]);
	expect(projectSkills({ skills: named }, cwd, env)).toEqual([join(cwd, ".crew", "skills", "mine")]);
});
