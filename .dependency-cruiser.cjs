/**
 * The layers of `src/` and what each may import, checked by `npm run check` (docs/architecture.md
 * has the table). Imports point inward: core ← store, workspace, resources ← config ← runtimes ←
 * engine ← adapters. No module imports itself round a circle, and every module is reached.
 */
const layer = (name, may) => ({
	name: `${name}-imports-inward`,
	comment: `src/${name} may import only ${may.length > 0 ? may.join(", ") : "itself"}`,
	severity: "error",
	from: { path: `^src/${name}/` },
	to: { path: "^src/", pathNot: [`^src/${name}/`, ...may.map((m) => (m.endsWith(".ts") ? `^src/${m}$` : `^src/${m}/`))] },
});

/** Inside the engine, folders point inward too: the run loop uses goals and integration, never the reverse. */
const room = (name, may) => ({
	name: `engine-${name}-imports-inward`,
	comment: `src/engine/${name} may import, of the engine, only ${may.length > 0 ? may.join(", ") : "itself"}`,
	severity: "error",
	from: { path: `^src/engine/${name}/` },
	to: {
		path: "^src/engine/",
		pathNot: [`^src/engine/${name}/`, ...may.map((m) => (m.endsWith(".ts") ? `^src/engine/${m}$` : `^src/engine/${m}/`))],
	},
});

module.exports = {
	forbidden: [
		{
			name: "no-circular",
			comment: "a module that depends on itself through others: split out what both need",
			severity: "error",
			from: {},
			to: { circular: true },
		},
		{
			name: "no-orphans",
			comment: "a module nothing imports is dead code, or an entry point to name here",
			severity: "error",
			from: { orphan: true, path: "^src/", pathNot: ["^src/index\\.ts$", "^src/script\\.ts$", "\\.d\\.ts$"] },
			to: {},
		},
		{
			name: "core-is-pure",
			comment: "src/core holds pure rules: no Node built-in module",
			severity: "error",
			from: { path: "^src/core/" },
			to: { dependencyTypes: ["core"] },
		},
		{
			name: "engine-starts-no-process",
			comment: "the engine reaches processes only through a runtime",
			severity: "error",
			from: { path: "^src/engine/" },
			to: { path: "^(node:)?child_process$" },
		},
		layer("core", []),
		layer("store", ["core"]),
		layer("workspace", ["core"]),
		layer("resources", ["core"]),
		layer("config", ["core", "resources"]),
		layer("runtimes", ["core", "config", "store", "workspace"]),
		layer("specs", ["core", "config", "runtimes"]),
		layer("engine", ["core", "store", "workspace", "resources", "config", "runtimes", "specs", "script.ts"]),
		layer("scripted-model", []),
		room("goals", []),
		room("integration", []),
		room("messages", []),
		room("views", []),
		room("run", ["goals", "integration", "delegation", "options.ts"]),
		room("delegation", ["planning", "options.ts"]),
		room("planning", ["goals", "views"]),
		room("history", ["planning", "views"]),
		room("control", ["history", "run"]),
		room("script", ["run"]),
	],
	options: {
		doNotFollow: { path: "node_modules" },
		tsPreCompilationDeps: true,
		tsConfig: { fileName: "tsconfig.json" },
		exclude: { path: "^(dist|node_modules)/" },
	},
};
