// Listening on a unix socket in a folder of its own, which is removed when listening fails.

import { rmSync } from "node:fs";
import type { Server } from "node:net";

/** `server` listening at `path`; when it cannot, `folder` (the socket's own) is removed and the error thrown. */
export async function listenInFolder(server: Server, path: string, folder: string): Promise<void> {
	try {
		await new Promise<void>((done, fail) => {
			server.once("error", fail);
			server.listen(path, () => done());
		});
	} catch (error) {
		rmSync(folder, { recursive: true, force: true });
		throw error;
	}
}
