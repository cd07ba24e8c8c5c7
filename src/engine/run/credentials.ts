// The credentials of runs' queue and repository URLs: kept in memory, never stored, restored to runs.

import type { RunRecord } from "../../core/records.js";
import { CREDENTIAL_ENV, hasCredentials, withKnownCredentials } from "../../core/url-credentials.js";

/**
 * The credentials of runs' queue and repository URLs, which the store never holds: URLs known to
 * this process (the user's config, `CREW_QUEUE_URL`, `CREW_REPOSITORY_URL`, and the URLs this
 * process planned runs with), matched to a run's stored URL by everything but the credentials.
 */
export class RunCredentials {
	readonly #configured: () => readonly string[];
	readonly #remembered: string[] = [];

	/** `configured` is read when a run needs it, so a command that starts no run never reads it. */
	constructor(configured: () => readonly string[]) {
		this.#configured = configured;
	}

	/** Keeps `url`'s credentials for the runs this process goes on to start; they win over configured ones. */
	remember(url: string | undefined): void {
		if (url !== undefined && hasCredentials(url)) this.#remembered.unshift(url);
	}

	/** `run` with its queue and repository URLs as they are to be used: with their credentials. */
	restore(run: RunRecord): RunRecord {
		const { queue, repository } = run.options;
		if (queue === undefined && repository === undefined) return run;
		const known = [...this.#remembered, ...this.#configured()];
		return {
			...run,
			options: {
				...run.options,
				...(queue !== undefined ? { queue: withKnownCredentials(queue, known) } : {}),
				...(repository !== undefined ? { repository: withKnownCredentials(repository, known) } : {}),
			},
		};
	}

	/** The environment that hands `run`'s credentials to another crew process (a background runner). */
	environment(run: RunRecord): Record<string, string> {
		const { queue, repository } = this.restore(run).options;
		return {
			...(queue !== undefined && hasCredentials(queue) ? { [CREDENTIAL_ENV.queue]: queue } : {}),
			...(repository !== undefined && hasCredentials(repository) ? { [CREDENTIAL_ENV.repository]: repository } : {}),
		};
	}
}
