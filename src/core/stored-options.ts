// A run's options as they are stored: URLs without credentials, script arguments redacted.

import { redact, redactDeep } from "./redact.js";
import type { RunOptions } from "./types.js";
import { withoutCredentials } from "./url-credentials.js";

/**
 * A run's options as they are stored: the queue's and the repository's URLs without their
 * credentials (a runner gets them again from the user's config or the environment), a workflow
 * script's arguments redacted. Command lines (setup, `--until`, agents) stay as the user wrote
 * them, since they must run. A caller's session id is an opaque id, redacted should it look like
 * a secret.
 */
export function storedOptions(options: RunOptions): RunOptions {
	const { queue, repository, script, caller } = options;
	return {
		...options,
		...(queue !== undefined ? { queue: withoutCredentials(queue) } : {}),
		...(repository !== undefined ? { repository: withoutCredentials(repository) } : {}),
		...(script?.args !== undefined ? { script: { ...script, args: redactDeep(script.args) } } : {}),
		...(caller?.session !== undefined ? { caller: { ...caller, session: redact(caller.session) } } : {}),
	};
}
