// A run's sandbox as planned: the level asked for or the machine's default, its team's ask and hosts.

import { CrewError, ErrorCode } from "../../core/errors.js";
import {
	isSandboxLevel,
	parseHostPort,
	type RunSandbox,
	SANDBOX_LEVELS,
	type SandboxLevel,
} from "../../core/sandbox-level.js";
import type { Diagnostic } from "../../resources/frontmatter.js";
import type { Loaded } from "../../resources/resource-loader.js";
import type { TeamResource } from "../../resources/team-file.js";
import { NO_SANDBOX } from "../../runtimes/sandbox/confine.js";

/**
 * A run's sandbox: the level asked for (its flag, else the user's config), else `workspace` where
 * this machine has a sandbox and `off`, with a warning, where it has none; its team's ask; and the
 * hosts the user allows. A level asked for that cannot be had is refused. A dry run starts no
 * process, so it looks for none.
 */
export function runSandbox(
	ask: { readonly level?: SandboxLevel | undefined; readonly hosts?: readonly string[] | undefined },
	team: Loaded<TeamResource> | undefined,
	machine: { available(): boolean },
	dry: boolean,
	diagnostics: Diagnostic[],
): RunSandbox {
	const asked = ask.level;
	if (asked !== undefined && !isSandboxLevel(asked)) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid sandbox ${JSON.stringify(asked)}: expected one of ${SANDBOX_LEVELS.join(", ")}`,
		);
	}
	const bad = ask.hosts?.find((host) => parseHostPort(host) === undefined);
	if (bad !== undefined) {
		throw new CrewError(ErrorCode.InvalidInput, `invalid sandbox host ${JSON.stringify(bad)}: expected host:port`);
	}
	const given = {
		...(team?.item.sandbox
			? { team: { level: team.item.sandbox, source: { layer: team.layer, file: team.item.file } } }
			: {}),
		...(ask.hosts && ask.hosts.length > 0 ? { hosts: [...ask.hosts] } : {}),
	};
	if (dry) return { level: asked ?? "off", ...given };
	if (asked !== undefined && asked !== "off" && !machine.available()) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`this run asks for sandbox '${asked}', and ${NO_SANDBOX}; or run it with --sandbox off`,
		);
	}
	if (asked !== undefined) return { level: asked, ...given };
	if (machine.available()) return { level: "workspace", ...given };
	diagnostics.push({
		level: "warning",
		file: "",
		message: `tasks run unconfined (sandbox off): ${NO_SANDBOX}, or say --sandbox off to run so on purpose`,
	});
	return { level: "off", ...given };
}
