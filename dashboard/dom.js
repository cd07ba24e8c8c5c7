// @ts-check
// What the dashboard's pages share: the API with its token, and small DOM and text helpers. Every
// text from the server goes in through textContent, never as HTML.

/**
 * The token from `?token=` is kept for this tab, for the changes it sends, and taken out of the
 * address bar; the server answered that address with a cookie that the reads carry.
 */
export function token() {
	const url = new URL(location.href);
	const given = url.searchParams.get("token");
	if (given) {
		sessionStorage.setItem("crew-token", given);
		url.searchParams.delete("token");
		history.replaceState(null, "", url);
	}
	return sessionStorage.getItem("crew-token") ?? "";
}

/**
 * @param {string} path
 * @param {RequestInit} [init]
 * @returns {Promise<any>}
 */
export async function api(path, init) {
	const response = await fetch(path, init);
	const body = await response.json().catch(() => ({}));
	if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
	return body;
}

/**
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, children = []) {
	const node = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
	node.append(...children);
	return node;
}

/** @param {string} status */
export function statusBadge(status) {
	return el("span", { class: `status status-${status}` }, [status]);
}

/** @param {number} ms */
export function duration(ms) {
	if (ms < 1000) return `${Math.round(ms)}ms`;
	const s = ms / 1000;
	if (s < 60) return `${s.toFixed(1)}s`;
	const m = Math.floor(s / 60);
	return m < 60 ? `${m}m${Math.round(s % 60)}s` : `${Math.floor(m / 60)}h${m % 60}m`;
}

/**
 * @param {string | null} from
 * @param {string | null} to
 */
export function elapsed(from, to) {
	if (!from) return "";
	return duration((to ? Date.parse(to) : Date.now()) - Date.parse(from));
}

/**
 * Usage as text; "≥ …" when partial: the agent used more than it reported.
 * @param {{inputTokens: number, outputTokens: number, costUsd: number, partial?: boolean}} u
 */
export function usageText(u) {
	if (!u || (u.inputTokens + u.outputTokens === 0 && !u.partial)) return "no tokens";
	const at = u.partial ? "≥ " : "";
	return `${at}${u.inputTokens.toLocaleString()} in, ${u.outputTokens.toLocaleString()} out tokens, $${u.costUsd.toFixed(4)}`;
}

/** Whole numbers as the dashboard writes them, with thousands separators ("12,345"): one formatter for every call, as making one per call costs more than the drawing. */
const COUNT = new Intl.NumberFormat("en-US");

/** @param {number} n */
export function count(n) {
	return COUNT.format(n);
}

/** @param {string} text */
export function setWhere(text) {
	const where = document.getElementById("where");
	if (where) where.textContent = text;
}

/** @param {string} text */
export function setConnection(text) {
	const node = document.getElementById("connection");
	if (node) node.textContent = text;
}

/**
 * A change sent to the API with the tab's token: `body`, when given, goes as JSON. Answers the
 * server's JSON, or throws its `error` as an Error.
 * @param {"POST" | "DELETE"} method
 * @param {string} path
 * @param {object} [body]
 * @returns {Promise<any>}
 */
export function send(method, path, body) {
	return api(path, {
		method,
		headers: { authorization: `Bearer ${token()}`, "content-type": "application/json" },
		...(body === undefined ? {} : { body: JSON.stringify(body) }),
	});
}

/**
 * A labelled field: the label names the control by its id.
 * @param {string} text
 * @param {HTMLElement} control with an id
 */
export function labelled(text, control) {
	return el("span", { class: "field" }, [el("label", { for: control.id }, [text]), control]);
}

/** Run states in which nothing of the run is running. */
export const ENDED_RUN = new Set(["completed", "failed", "cancelled", "interrupted"]);

/**
 * `action` on each click of `button`, one at a time: a click while one is on its way does
 * nothing, so a double click sends one change, not two. An action that answers `"left"` has sent
 * the page elsewhere: the button stays busy until it goes.
 * @param {HTMLElement} button
 * @param {() => Promise<"left" | void>} action
 */
export function onClick(button, action) {
	let busy = false;
	button.addEventListener("click", async () => {
		if (busy) return;
		busy = true;
		let left = false;
		try {
			left = (await action()) === "left";
		} finally {
			busy = left;
		}
	});
}

/**
 * Opens the page of run `runId`.
 * @param {string} runId
 * @returns {"left"}
 */
export function openRun(runId) {
	location.href = `/runs/${encodeURIComponent(runId)}`;
	return "left";
}

/**
 * A table `id` with a row of `headers` over `body`, which scrolls sideways on a narrow screen.
 * @param {string} id
 * @param {string[]} headers
 * @param {HTMLElement} body
 */
export function scrollingTable(id, headers, body) {
	const head = el("thead", {}, [
		el(
			"tr",
			{},
			headers.map((h) => el("th", {}, [h])),
		),
	]);
	return el("div", { class: "table-scroll" }, [el("table", { id }, [head, body])]);
}
