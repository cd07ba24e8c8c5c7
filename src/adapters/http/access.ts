// Who may reach crew's HTTP server: the Host check, the API token and the dashboard's cookie.

import { timingSafeEqual } from "node:crypto";
import type { Context, Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";

/** Who may reach crew's HTTP server, and with what. */
export interface AccessOptions {
	/** What every API request and `/metrics` must carry: `Authorization: Bearer <token>`, or the dashboard's cookie for a read. */
	readonly token: string;
	/**
	 * Host names answered (the Host header without its port, e.g. `127.0.0.1`); others get 403, so
	 * a web page on another name cannot reach the server through DNS rebinding.
	 */
	readonly allowedHosts: readonly string[];
	/** `/metrics` without the token, for a scraper that cannot send one. */
	readonly metricsOpen?: boolean;
}

/** The cookie the dashboard's `?token=` link sets, which its pages' reads (and event streams) carry. */
const COOKIE = "crew_token";

/**
 * Puts `options` in front of every route of `app`: the Host check, the token for every API
 * request and `/metrics` (a change needs the header: a cookie rides along with requests a
 * page of another site makes), and `nosniff` on every answer, so nothing served is read as a
 * script or a page it is not.
 */
export function guard(app: Hono, options: AccessOptions): void {
	const hosts = new Set(options.allowedHosts);
	app.use(async (c, next) => {
		c.header("X-Content-Type-Options", "nosniff");
		const host = (c.req.header("host") ?? "").replace(/:\d+$/, "");
		if (!hosts.has(host)) return c.json({ error: `host '${host}' is not served here` }, 403);
		const given = c.req.query("token");
		if (given !== undefined && isSameToken(given, options.token)) {
			setCookie(c, COOKIE, options.token, { httpOnly: true, sameSite: "Strict", path: "/" });
		}
		return next();
	});
	const needsToken = async (c: Context, next: () => Promise<void>) => {
		const read = c.req.method === "GET" || c.req.method === "HEAD";
		const bearer = /^Bearer (.+)$/.exec(c.req.header("authorization") ?? "")?.[1];
		const given = bearer ?? (read ? getCookie(c, COOKIE) : undefined) ?? "";
		if (!isSameToken(given, options.token)) {
			return c.json({ error: "this needs the token crew serve printed, as 'Authorization: Bearer <token>'" }, 401);
		}
		return next();
	};
	app.use("/api/*", needsToken);
	if (!options.metricsOpen) app.use("/metrics", needsToken);
}

function isSameToken(given: string, token: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(token);
	return a.length === b.length && timingSafeEqual(a, b);
}
