// @ts-check
// crew's dashboard: picks the page the address names (the runs list at `/`, a run's live DAG at
// `/runs/<id>`, two runs compared, the inbox, the insights, the schedules) and shows it in
// `#main`, its error there when it fails. Plain DOM, no build step; every text from the server
// goes in through textContent, never as HTML.

import { comparePage } from "./compare.js";
import { el, token } from "./dom.js";
import { inboxPage, watchInbox } from "./inbox.js";
import { runPage } from "./run-page.js";
import { runsPage } from "./runs.js";

async function start() {
	token();
	watchInbox();
	const match = /^\/runs\/([^/]+)$/.exec(location.pathname);
	const compare = /^\/runs\/([^/]+)\/compare\/([^/]+)$/.exec(location.pathname);
	try {
		if (match) await runPage(decodeURIComponent(match[1] ?? ""));
		else if (compare) await comparePage(decodeURIComponent(compare[1] ?? ""), decodeURIComponent(compare[2] ?? ""));
		else if (location.pathname === "/inbox") await inboxPage();
		else if (location.pathname === "/insights") await (await import("./insights.js")).insightsPage();
		else if (location.pathname === "/schedules") await (await import("./schedules.js")).schedulesPage();
		else await runsPage();
	} catch (error) {
		const main = document.getElementById("main");
		main?.replaceChildren(el("p", { class: "error" }, [/** @type {Error} */ (error).message]));
	}
}

start();
