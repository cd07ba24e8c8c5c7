// Credentials in queue and repository URLs: left out when stored, and found again when needed.

/** The environment variables a crew process reads credentialed queue and repository URLs from. */
export const CREDENTIAL_ENV = { queue: "CREW_QUEUE_URL", repository: "CREW_REPOSITORY_URL" } as const;

/**
 * `url` without the user name and password it may carry (`redis://user:pw@host:6379/0` →
 * `redis://host:6379/0`): what crew stores of a queue or repository URL. Text that is not a URL
 * with credentials (a path, `git@host:repo`) is returned as it is.
 */
export function withoutCredentials(url: string): string {
	const parsed = parsedUrl(url);
	if (!parsed || (parsed.username === "" && parsed.password === "")) return url;
	parsed.username = "";
	parsed.password = "";
	return parsed.href;
}

/** Whether `url` carries a user name or a password. */
export function hasCredentials(url: string): boolean {
	return withoutCredentials(url) !== url;
}

/**
 * The URL among `known` (the user's config, the environment, the command's own flags) that is
 * `stored` once its credentials are added: the first with credentials whose scheme, host, port
 * and path are `stored`'s. `stored` itself when none is.
 */
export function withKnownCredentials(stored: string, known: readonly string[]): string {
	const target = comparable(stored);
	return known.find((url) => hasCredentials(url) && comparable(url) === target) ?? stored;
}

/** A URL without credentials, as `URL` writes it, so equal addresses compare equal. */
function comparable(url: string): string {
	const parsed = parsedUrl(url);
	if (!parsed) return url;
	parsed.username = "";
	parsed.password = "";
	return parsed.href;
}

function parsedUrl(url: string): URL | undefined {
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return undefined;
	try {
		return new URL(url);
	} catch {
		// Not a URL: nothing in it is parsed as credentials, and it is stored as given.
		return undefined;
	}
}
