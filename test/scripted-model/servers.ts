import { afterEach } from "vitest";
import { ScriptedModelServer } from "../../src/scripted-model/scripted-model-server.js";
import type { Script } from "../../src/scripted-model/turns.js";

/** Starts scripted servers for a test file, and closes them after each test. */
export function serverStarter(): (script: Script) => Promise<ScriptedModelServer> {
	const servers: ScriptedModelServer[] = [];
	afterEach(async () => {
		for (const server of servers.splice(0)) await server.close();
	});
	return async (script) => {
		const server = await ScriptedModelServer.start(script);
		servers.push(server);
		return server;
	};
}
