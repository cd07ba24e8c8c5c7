/** `crew serve` for the benches that read through it. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../bin/crew.js", import.meta.url));

/** Starts `crew serve --port 0` in `dir`; resolves with the child, its base URL and its token. */
export function serve(dir) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, "serve", "--port", "0"], {
			cwd: dir,
			stdio: ["ignore", "pipe", "inherit"],
		});
		let out = "";
		child.stdout.setEncoding("utf8").on("data", (chunk) => {
			out += chunk;
			const found = /dashboard\s+(http:\/\/[^/\s]+)\/\?token=(\S+)/.exec(out);
			if (found) resolve({ child, url: found[1], token: found[2] });
		});
		child.on("error", reject);
		child.on("exit", (code) => reject(new Error(`crew serve exited ${code}:\n${out}`)));
	});
}
