// Debian's Chromium over crew's dashboard, as the browser tests drive it.

import { type ChildProcess, spawn } from "node:child_process";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { CLI, cancelLiveRuns, type TestRepo, waitFor } from "../../helpers.js";

/** A headless Chromium, and the `crew serve` processes and repositories a test file started. */
export class DashboardBrowser {
	readonly browser: Browser;
	readonly #servers: ChildProcess[] = [];
	readonly #repos: TestRepo[] = [];

	private constructor(browser: Browser) {
		this.browser = browser;
	}

	static async launch(): Promise<DashboardBrowser> {
		const browser = await chromium.launch({
			executablePath: "/usr/bin/chromium",
			args: [
				"--headless",
				"--no-sandbox",
				"--disable-gpu",
				"--disable-quic",
				"--disable-background-networking",
				"--disable-component-update",
				"--disable-sync",
				"--no-first-run",
			],
		});
		return new DashboardBrowser(browser);
	}

	/** `repo`'s live runs are cancelled when the browser closes. */
	keep(repo: TestRepo): TestRepo {
		this.#repos.push(repo);
		return repo;
	}

	/** Starts `crew serve --port 0` in the repository and returns the dashboard URL it prints. */
	async serve(dir: string): Promise<string> {
		const server = spawn(process.execPath, [CLI, "serve", "--port", "0"], {
			cwd: dir,
			stdio: ["ignore", "pipe", "pipe"],
		});
		this.#servers.push(server);
		let out = "";
		server.stdout?.on("data", (chunk: Buffer) => {
			out += chunk.toString();
		});
		return await waitFor(
			"the dashboard URL",
			() => /dashboard\s+(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out)?.[1],
		);
	}

	async close(): Promise<void> {
		await this.browser.close();
		for (const server of this.#servers) server.kill("SIGTERM");
		for (const repo of this.#repos) await cancelLiveRuns(repo.dir);
	}
}

/**
 * The DashboardBrowser of the test file that calls this (at its top level): launched before its
 * tests, closed after them.
 */
export function fileDashboard(): Pick<DashboardBrowser, "browser" | "keep" | "serve"> {
	let made: DashboardBrowser | undefined;
	beforeAll(async () => {
		made = await DashboardBrowser.launch();
	});
	afterAll(() => made?.close());
	const launched = (): DashboardBrowser => {
		if (!made) throw new Error("the browser is launched before the file's tests, not when the file is read");
		return made;
	};
	return {
		get browser() {
			return launched().browser;
		},
		keep: (repo) => launched().keep(repo),
		serve: (dir) => launched().serve(dir),
	};
}

/** The page of run `runId` on the dashboard whose address (with its token) is `home`. */
export function runPage(home: string | URL, runId: string): string {
	const url = new URL(home);
	return `${url.origin}/runs/${encodeURIComponent(runId)}${url.search}`;
}
