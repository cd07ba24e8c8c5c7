// The dashboard's static files, served by name with their content types.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "hono";
import { crewPackagePath } from "../../config/crew-package.js";

/** The dashboard's files, each with its type: nothing else in the folder is served. */
const FILES: Readonly<Record<string, string>> = {
	"index.html": "text/html; charset=utf-8",
	"app.js": "text/javascript; charset=utf-8",
	"compare.js": "text/javascript; charset=utf-8",
	"cost.js": "text/javascript; charset=utf-8",
	"delegated.js": "text/javascript; charset=utf-8",
	"requirements.js": "text/javascript; charset=utf-8",
	"resources.js": "text/javascript; charset=utf-8",
	"dom.js": "text/javascript; charset=utf-8",
	"inbox.js": "text/javascript; charset=utf-8",
	"insights.js": "text/javascript; charset=utf-8",
	"new-run.js": "text/javascript; charset=utf-8",
	"run-graph.js": "text/javascript; charset=utf-8",
	"run-page.js": "text/javascript; charset=utf-8",
	"runs.js": "text/javascript; charset=utf-8",
	"schedules.js": "text/javascript; charset=utf-8",
	"task-panel.js": "text/javascript; charset=utf-8",
	"timeline.js": "text/javascript; charset=utf-8",
	"style.css": "text/css; charset=utf-8",
	"favicon.svg": "image/svg+xml",
};

/** One of the dashboard's files, read at each request so the package's copy is what is served. */
export function dashboardFile(c: Context, name: string): Response {
	const type = FILES[name];
	if (!type) return c.json({ error: `no dashboard file ${JSON.stringify(name)}` }, 404);
	return c.body(readFileSync(join(crewPackagePath("dashboard"), name)), 200, {
		"content-type": type,
		"cache-control": "no-cache",
	});
}
