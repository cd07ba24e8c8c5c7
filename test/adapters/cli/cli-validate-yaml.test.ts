import { expect, test } from "vitest";
import { crew, TestRepo } from "../../helpers.js";

test("crew validate refuses an agent whose front matter YAML cannot read, naming its line, and counts it as one error", async () => {
	const repo = new TestRepo();
	repo.writeFile(".crew/agents/broke.md", "---\nname: broke\nmodel: [unclosed\n---\nHi.\n");
	const validate = await crew(repo.dir, ["validate"]);
	expect(validate.code).toBe(2);
	expect(validate.stderr + validate.stdout).toContain(
		"broke.md:3: 'model' does not read as YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
	);
	expect(validate.stdout).toMatch(/^invalid: .* 1 error, 0 warnings$/m);
});
