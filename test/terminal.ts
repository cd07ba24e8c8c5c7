import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";

/**
 * A terminal a test reads as a person would: one tmux session on a tmux server of its own (its
 * own socket, started with the test's environment), so no other tmux server on the machine, nor
 * another test's, is ever talked to.
 */
export class Terminal {
	readonly #server = `crew-test-${randomUUID().slice(0, 8)}`;

	/** Runs `command` by the shell in `cwd` on a terminal of `columns` × `rows`. */
	constructor(cwd: string, command: string, size: { readonly columns: number; readonly rows: number }) {
		this.#tmux(
			"new-session",
			"-d",
			"-s",
			"test",
			"-x",
			String(size.columns),
			"-y",
			String(size.rows),
			"-c",
			cwd,
			command,
		);
	}

	/** What the terminal shows now, line by line. */
	screen(): string {
		return this.#tmux("capture-pane", "-p", "-t", "test");
	}

	/** Ends the terminal, its command and its server. */
	close(): void {
		try {
			this.#tmux("kill-server");
		} catch {
			// The server ended with its only session's command: nothing is left to end.
		}
	}

	#tmux(...args: string[]): string {
		return execFileSync("tmux", ["-L", this.#server, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
	}
}
