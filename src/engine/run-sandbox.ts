import { CrewError, ErrorCode } from "../core/errors.js";
import { isSandboxLevel, type RunSandbox, SANDBOX_LEVELS, type SandboxLevel } from "../core/sandbox.js";
import type { Diagnostic } from "../resources/frontmatter.js";
import type { Loaded } from "../resources/resource-loader.js";
import type { TeamResource } from "../resources/team-file.js";

/** How to get a sandbox where there is none: said by the warning and by `crew doctor`. */
export const NO_SANDBOX = `no working bubblewrap (bwrap) is on PATH${process.platform === "linux" ? "" : `, and crew has no sandbox on ${process.platform}`}: install it (Debian/Ubuntu: apt-get install bubblewrap)`;

/**
 * A run's sandbox: the level asked for (its flag, else the user's config), else `workspace` where
 * this machine has a sandbox and `off`, with a warning, where it has none; and its team's ask. A
 * level asked for that cannot be had is refused. A dry run starts no process, so it looks for none.
 */
export function runSandbox(
	asked: SandboxLevel | undefined,
	team: Loaded<TeamResource> | undefined,
	machine: { available(): boolean },
	dry: boolean,
	diagnostics: Diagnostic[],
): RunSandbox {
	if (asked !== undefined && !isSandboxLevel(asked)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid sandbox ${JSON.stringify(asked)}: expected one of ${SANDBOX_LEVELS.join(", ")}`,
		);
	}
	const teamAsk = team?.item.sandbox
		? { team: { level: team.item.sandbox, source: { layer: team.layer, file: team.item.file } } }
		: {};
	if (dry) return { level: asked ?? "off", ...teamAsk };
	if (asked !== undefined && asked !== "off" && !machine.available()) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`this run asks for sandbox '${asked}', and ${NO_SANDBOX}; or run it with --sandbox off`,
		);
	}
	if (asked !== undefined) return { level: asked, ...teamAsk };
	if (machine.available()) return { level: "workspace", ...teamAsk };
	diagnostics.push({
		level: "warning",
		file: "",
		message: `tasks run unconfined (sandbox off): ${NO_SANDBOX}, or say --sandbox off to run so on purpose`,
	});
	return { level: "off", ...teamAsk };
}
