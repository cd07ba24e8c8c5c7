// Parsers of the CLI's option values: counts, ports, amounts, budget caps, JSON and lists of names.

import { InvalidArgumentError } from "commander";

/** Parsers of option values: each refuses a bad value naming it and what was expected. */

export function count(what: string, min: number): (value: string) => number {
	return (value) => {
		const n = Number(value);
		if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < min) {
			throw new InvalidArgumentError(`invalid ${what} '${value}': expected an integer >= ${min}`);
		}
		return n;
	};
}

export function port(value: string): number {
	const n = count("--port", 0)(value);
	if (n > 65535) throw new InvalidArgumentError(`invalid --port '${value}': expected an integer from 0 to 65535`);
	return n;
}

export function amount(what: string): (value: string) => number {
	return (value) => {
		const n = Number(value);
		if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(n)) {
			throw new InvalidArgumentError(`invalid ${what} '${value}': expected a non-negative number, e.g. 2.50`);
		}
		return n;
	};
}

/** A budget's cap: a number > 0 (a whole one for tokens), as a cap of 0 would start nothing. */
export function cap(what: string, whole: boolean): (value: string) => number {
	return (value) => {
		const n = Number(value);
		const shape = whole ? /^\d+$/ : /^\d+(\.\d+)?$/;
		if (!shape.test(value.trim()) || !Number.isFinite(n) || n <= 0) {
			const expected = whole ? "an integer > 0" : "a number > 0, e.g. 2.50";
			throw new InvalidArgumentError(`invalid ${what} '${value}': expected ${expected}`);
		}
		return n;
	};
}

export function json(what: string): (value: string) => unknown {
	return (value) => {
		try {
			return JSON.parse(value);
		} catch (error) {
			throw new InvalidArgumentError(
				`invalid ${what} ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}: expected JSON, e.g. '{"packages": ["a", "b"]}' (${(error as Error).message})`,
			);
		}
	};
}

/** A comma-separated list of names, each one of `valid`; `what` says what they are, e.g. "task statuses". */
export function names<T extends string>(option: string, what: string, valid: readonly T[]): (value: string) => T[] {
	return (value) =>
		value.split(",").map((name) => {
			const trimmed = name.trim();
			if (!(valid as readonly string[]).includes(trimmed)) {
				throw new InvalidArgumentError(`invalid ${option} '${trimmed}': expected ${what} among ${valid.join(", ")}`);
			}
			return trimmed as T;
		});
}
