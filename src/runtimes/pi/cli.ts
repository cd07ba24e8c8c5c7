// The pi agent CLI: pi in RPC mode with the agent's model, tools and prompt, and crew's `ask` extension.

import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { crewPackagePath } from "../../config/crew-package.js";
import { replacesSystemPrompt } from "../../core/agent-setup.js";
import { ASK_DESCRIPTION, ASK_TOOL } from "../../core/asked.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { AGENT_TOOLS, allTools, DELEGATION_TOOLS, isExtensionTool } from "../../core/tools.js";
import type { AgentCli } from "../agent/agent-cli.js";
import type { Conversation } from "../agent/conversation.js";
import { piAgentDir, piCredentials } from "../agent/credentials.js";
import { piHosts } from "../agent/provider-hosts.js";
import { agentExtensions, skillPath } from "../agent/skills.js";
import { onPath } from "../process/program-path.js";
import { parseVersion, piProjectResources } from "./project.js";
import { piSessions } from "./session.js";
import { PiStream } from "./stream.js";

/** The user's own `pi` on `PATH`, else the one crew is developed with, where that is installed. */
export function piProgram(env: NodeJS.ProcessEnv): readonly string[] {
	const own = onPath("pi", env.PATH ?? "");
	if (own) return [own];
	const bundled = bundledPi();
	if (bundled) return bundled;
	throw new CrewError(
		ErrorCode.Runtime,
		"no pi to run: none is on PATH; install pi (npm install -g @earendil-works/pi-coding-agent) or name one with `runtimes.pi` in your crew config.json or CREW_PI",
	);
}

/**
 * The pi crew is developed with (a development dependency: a clone has it, an installed crew
 * does not), as `node <its cli.js>`; undefined where it is not installed.
 */
export function bundledPi(): readonly string[] | undefined {
	try {
		const cli = join(dirname(fileURLToPath(import.meta.resolve("@mariozechner/pi-coding-agent"))), "cli.js");
		return existsSync(cli) ? [process.execPath, cli] : undefined;
	} catch {
		return undefined;
	}
}

const PROMPT_ID = "crew-prompt";

/** The extension UI requests of pi's RPC mode that wait for an answer. */
const DIALOGS: ReadonlySet<string> = new Set(["select", "confirm", "input", "editor"]);

/** The title of the dialog by which crew's extension asks a person the agent's question. */
const ASK_TITLE = "crew-ask: ";

/**
 * crew's pi extension for an attempt whose agent may ask: its `ask` tool opens an input dialog
 * that crew answers with a person's answer, which becomes the tool's result.
 */
const ASK_EXTENSION = `export default function (pi) {
	pi.registerTool({
		name: ${JSON.stringify(ASK_TOOL)},
		label: "Ask",
		description: ${JSON.stringify(ASK_DESCRIPTION)},
		parameters: {
			type: "object",
			properties: { question: { type: "string", description: "The question, whole: the person sees nothing else." } },
			required: ["question"],
		},
		async execute(_id, params, _signal, _onUpdate, ctx) {
			const answer = await ctx.ui.input(${JSON.stringify(ASK_TITLE)} + String(params.question));
			return { content: [{ type: "text", text: answer ?? "(no answer)" }], details: {} };
		},
	});
}
`;

/**
 * pi's RPC mode: the prompt, then steering messages, as commands on stdin; pi replies to each by
 * its id, and says `agent_end` when its agent is done. A prompt pi refuses ends the work too.
 */
const piConversation: Conversation = {
	prompt: (text) => `${JSON.stringify({ id: PROMPT_ID, type: "prompt", message: text })}\n`,
	message: (text, id) => `${JSON.stringify({ id, type: "steer", message: text })}\n`,
	replies: true,
	dismiss: (id) => `${JSON.stringify({ type: "extension_ui_response", id, cancelled: true })}\n`,
	answer: (id, text) => `${JSON.stringify({ type: "extension_ui_response", id, value: text })}\n`,
	read(event) {
		if (event.type === "agent_end") return { over: true };
		const { title } = event;
		if (event.type === "extension_ui_request" && event.method === "input" && typeof event.id === "string") {
			if (typeof title === "string" && title.startsWith(ASK_TITLE)) {
				return { ask: event.id, question: title.slice(ASK_TITLE.length) };
			}
		}
		if (event.type === "extension_ui_request" && typeof event.id === "string" && DIALOGS.has(String(event.method))) {
			const asks = [event.title, event.message].filter((t) => typeof t === "string").join(": ");
			return { dialog: event.id, asks };
		}
		if (event.type !== "response" || typeof event.id !== "string") return undefined;
		if (event.id === PROMPT_ID) return event.success === false ? { over: true } : undefined;
		const refused =
			event.success === false ? { refused: `pi refused it: ${String(event.error ?? "no reason given")}` } : {};
		return { reply: event.id, ...refused };
	},
};

/**
 * pi in RPC mode: `pi --mode rpc --offline --session <file>`, the agent's model (`provider/id`), tools
 * and system prompt, and pi-crew's setup keys as pi's own flags; the prompt and any steering go
 * on stdin (`piConversation`), and its events are those of its JSON mode.
 */
export const piCli: AgentCli = {
	name: "pi",
	defaultCommand: piProgram,
	// Its sessions are kept in the attempt's folder (`piSessions`); a refreshed login it writes back.
	home: (env) => ({
		dir: piAgentDir(env) ?? join(homedir(), ".pi", "agent"),
		variable: "PI_CODING_AGENT_DIR",
		through: ["auth.json"],
		links: { except: ["sessions"] },
	}),
	args(request, { systemFile, asks, delegates, env }) {
		const args = ["--mode", "rpc", "--offline"];
		const { agent } = request;
		const setup = agent.setup ?? {};
		if (agent.model) args.push("--model", agent.model);
		if (!allTools(agent.tools)) {
			// pi's own tools, and crew's `ask` when the agent may ask. pi's list names extensions' tools
			// too: other names are kept for an agent that names its extensions, else left out (pi-crew's
			// `delegate`, …).
			const extended = (setup.extensions?.length ?? 0) > 0;
			const named = (agent.tools ?? []).filter(
				(t) =>
					AGENT_TOOLS.includes(t) || (delegates && DELEGATION_TOOLS.includes(t)) || (extended && isExtensionTool(t)),
			);
			const tools = [...named, ...(asks ? [ASK_TOOL] : [])];
			if (tools.length > 0) args.push("--tools", tools.join(","));
			else args.push("--no-tools");
		}
		if (systemFile) args.push(replacesSystemPrompt(setup) ? "--system-prompt" : "--append-system-prompt", systemFile);
		if (!setup.inheritProjectContext) args.push("--no-context-files");
		// The skills named are loaded whether pi finds its own or not.
		if (!setup.inheritSkills) args.push("--no-skills");
		for (const name of setup.skills ?? []) {
			const path = skillPath(name, request.cwd, env);
			if (path) args.push("--skill", path);
		}
		// Named extensions replace those pi finds; crew's own (`ask`) comes with its own `--extension`.
		if (setup.extensions) {
			args.push("--no-extensions");
			for (const path of agentExtensions(setup, request.cwd)) args.push("--extension", path);
		}
		// Its runner takes delegations: crew's `agent` and `team`, for an agent whose tools allow them.
		if (delegates) args.push("--extension", crewPackagePath("dist", "adapters", "pi", "delegation-extension.js"));
		return args;
	},
	// maxTurns: crew counts pi's turns and holds it to them (see TurnLimit).
	ignores: () => [],
	conversation: () => piConversation,
	askTool: { via: "extension", suffix: "ask.js", text: ASK_EXTENSION, args: (file) => ["--extension", file] },
	credentials: (request, env) => piCredentials(request.agent.model, env),
	// pi's own levels; pi 0.73 knows no `max`, says so on stderr and keeps its default.
	thinking: (level) => ({ args: ["--thinking", level] }),
	hosts: (request, env) => piHosts(request.agent.model, env),
	stream: () => new PiStream(),
	sessions: piSessions,
	admit: async (request, version) => {
		const found = piProjectResources(request.cwd);
		if (found.length === 0) return { args: [] };
		const said = await version();
		const [major] = parseVersion(said) ?? [0];
		// pi 1.x decides for itself whether to load a project's own files; headless, crew tells it.
		if (major >= 1) return { args: [request.projectTrusted ? "--approve" : "--no-approve"] };
		if (request.projectTrusted) return { args: [] };
		return {
			refused: `pi ${said} would load this repository's own ${found.join(", ")}, and cannot be told not to, but the repository is not trusted; if you trust it, run \`crew trust\` in it, else use pi 1.x, which leaves them out (\`runtimes.pi\` in your crew config.json, or CREW_PI)`,
		};
	},
};
