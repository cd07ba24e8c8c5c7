// @slow: a virtual environment made and a wheel installed by pip, a TypeScript build and a Python test run, each a confined crew run
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../helpers.js";
import { developers, writeFiles } from "./developer.js";

/** Builds and tests a developer's agent runs in the default sandbox: TypeScript, Python, pip from a wheels folder, git. */
const developer = developers();

test("a TypeScript project builds with tsc, incrementally, into its own folder", async () => {
	const dev = developer();
	writeFiles(dev.repo, {
		"tsconfig.json": JSON.stringify({
			compilerOptions: { outDir: "dist", strict: true, incremental: true },
			include: ["src"],
		}),
		"src/index.ts": "export function twice(x: number): number {\n\treturn x * 2;\n}\n",
	});
	const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
	const { stdout } = await dev.command(
		"build TypeScript",
		`node ${tsc} -p . && node -e 'console.log(require("./dist/index.js").twice(21))'`,
	);
	expect(stdout).toContain("42");
});

test("a Python test suite runs, and a package installs from a wheels folder into a virtual environment", async () => {
	const dev = developer();
	writeFiles(dev.repo, {
		"calc.py": "def add(a, b):\n    return a + b\n",
		"test_calc.py":
			"import unittest\nfrom calc import add\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
	});
	wheel(join(dev.repo, "wheels"));
	const script = [
		"python3 -m unittest -v 2>&1",
		"python3 -m venv .venv",
		".venv/bin/pip install --no-index --find-links wheels honest-calc",
		`.venv/bin/python -c 'import honest_calc; print("wheel says", honest_calc.add(2, 3))'`,
	].join(" && ");
	const { stdout } = await dev.command("test Python and install a wheel", script);
	expect(stdout).toContain("OK");
	expect(stdout).toContain("wheel says 5");
});

test("an agent commits its work with git", async () => {
	const dev = developer();
	const { stdout } = await dev.command(
		"commit",
		'echo "more" >> README.md && git add README.md && git commit -q -m "more docs" && git log --format=%s -1',
	);
	expect(stdout).toContain("more docs");
	expect(dev.git(["log", "--format=%s", "-1"])).toBe("more docs");
});

/** A pure-Python wheel, `honest-calc`, built as a wheel is laid out (its RECORD hashed), in `dir`. */
function wheel(dir: string): void {
	mkdirSync(dir, { recursive: true });
	const script = `
import base64, hashlib, sys, zipfile
info = "honest_calc-1.0.0.dist-info"
files = {
    "honest_calc/__init__.py": "def add(a, b):\\n    return a + b\\n",
    info + "/METADATA": "Metadata-Version: 2.1\\nName: honest-calc\\nVersion: 1.0.0\\n",
    info + "/WHEEL": "Wheel-Version: 1.0\\nGenerator: crew-tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
record = []
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name, text in files.items():
        data = text.encode()
        z.writestr(name, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(info + "/RECORD,,")
    z.writestr(info + "/RECORD", "\\n".join(record) + "\\n")
`;
	execFileSync("python3", ["-c", script, join(dir, "honest_calc-1.0.0-py3-none-any.whl")]);
}
