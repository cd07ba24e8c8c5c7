import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
	export interface ProvidedContext {
		/** The folder under which every test file gets its own temporary, home and config folders. */
		privateRoot: string;
	}
}

/**
 * Vitest global setup: one folder for the whole run, outside `/tmp` (whatever else on the machine
 * leaves there, a stray `/tmp/.git` among it, cannot reach a test), removed when the run ends. Its
 * path is short: unix sockets made under it (Chromium's, crew's gate and ask sockets) must fit in
 * 108 bytes.
 */
export default function setup(project: TestProject): () => void {
	const root = mkdtempSync(join("/var/tmp", "crew-"));
	project.provide("privateRoot", root);
	return () => rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}
