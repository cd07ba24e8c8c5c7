import { expect, test } from "vitest";
import { DenialWatch } from "../../src/runtimes/sandbox/denials.js";
import type { WorkerEvent } from "../../src/runtimes/worker-runtime.js";

function watching(): { watch: DenialWatch; denied: () => unknown[] } {
	const events: WorkerEvent[] = [];
	const watch = new DenialWatch((event) => events.push(event), { reach: [], cwd: "/work" });
	return {
		watch,
		denied: () => events.filter((e) => e.type === "sandbox-denied").map(({ type, ...what }) => what),
	};
}

const REFUSED = "curl: (7) Failed to connect to 127.0.0.1 port 40583 after 0 ms: Couldn't connect to server\n";

test("a stderr kept as its start and its end is read by whole lines: a line cut at either edge names no shorter port", () => {
	const { watch, denied } = watching();
	const head = `${"x".repeat(30)}\n${REFUSED.slice(0, REFUSED.indexOf("40583") + 3)}`;
	const tail = `${REFUSED.slice(REFUSED.indexOf("40583") + 2)}Failed to connect to 10.0.0.2 port 8080 after 1 ms\n`;
	watch.scanEnds(head, tail);
	expect(denied()).toEqual([{ host: "10.0.0.2", port: 8080 }]);
});

test("a stderr short enough to be kept whole is read whole, its last line too when it has no newline", () => {
	const { watch, denied } = watching();
	const whole = `${REFUSED}Failed to connect to 10.0.0.2 port 8080`;
	watch.scanEnds(whole, whole);
	expect(denied()).toEqual([
		{ host: "127.0.0.1", port: 40583 },
		{ host: "10.0.0.2", port: 8080 },
	]);
});

test("a tool's output crew cut short names no shorter port, and what came before the cut still counts", () => {
	const { watch, denied } = watching();
	const cut = `${REFUSED}Failed to connect to 10.0.0.2 port 80…`;
	watch.pass({ type: "tool-end", id: "1", name: "bash", isError: true, output: cut });
	watch.pass({ type: "output", text: `${"y".repeat(20)} Failed to connect to 10.0.0.3 port 44…` });
	expect(denied()).toEqual([{ host: "127.0.0.1", port: 40583 }]);
});

test("a refused host is told with the setting that would allow it (its registry by name, else the host itself), then an allowed host the gate could not reach", () => {
	const { watch } = watching();
	expect(watch.networkCauses()).toEqual([]);
	watch.deny({ host: "registry.npmjs.org", port: 443 });
	watch.deny({ host: "10.0.0.2", port: 8080 });
	watch.deny({ host: "pypi.org" });
	watch.gate([{ host: "127.0.0.1", port: 4873 }]).unreachable({ host: "127.0.0.1", port: 4873 }, "ECONNREFUSED");
	expect(watch.networkCauses()).toEqual([
		'the sandbox refused a connection to registry.npmjs.org:443 (to allow it, add "sandbox": {"registries": ["npm"]} to your user config.json)',
		'the sandbox refused a connection to 10.0.0.2:8080 (to allow it, add "sandbox": {"hosts": ["10.0.0.2:8080"]} to your user config.json)',
		'the sandbox refused a connection to pypi.org (to allow it, add "sandbox": {"registries": ["pypi"]} to your user config.json)',
		"crew's network gate could not connect to 127.0.0.1:4873 (ECONNREFUSED)",
	]);
});
