// A queue's `redis://` URL parsed into the address its Redis clients connect to.

import { CrewError, ErrorCode } from "../../core/errors.js";

/** Where a Redis server is, from `redis://[user:password@]host:port[/db]`. */
export interface RedisAddress {
	readonly host: string;
	readonly port: number;
	readonly db?: number;
	readonly username?: string;
	readonly password?: string;
}

export function redisAddress(url: string): RedisAddress {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new CrewError(ErrorCode.InvalidInput, `invalid queue URL ${JSON.stringify(url)}: expected redis://host:port`);
	}
	const db = parsed.pathname.replace(/^\//, "");
	if (parsed.protocol !== "redis:" || parsed.hostname === "" || (db !== "" && !/^\d+$/.test(db))) {
		throw new CrewError(
			ErrorCode.InvalidInput,
			`invalid queue URL ${JSON.stringify(url)}: expected redis://host:port[/db]`,
		);
	}
	return {
		host: parsed.hostname,
		port: parsed.port === "" ? 6379 : Number(parsed.port),
		...(db !== "" ? { db: Number(db) } : {}),
		...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
		...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
	};
}
