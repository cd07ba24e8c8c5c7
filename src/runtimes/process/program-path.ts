// Finding an executable program in the folders of a `PATH`.

import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** The first executable file `name` in the absolute folders of `path`. */
export function onPath(name: string, path: string): string | undefined {
	for (const dir of path.split(delimiter)) {
		if (!isAbsolute(dir)) continue;
		const file = join(dir, name);
		try {
			accessSync(file, constants.X_OK);
			if (statSync(file).isFile()) return file;
		} catch {
			// Not there, or not executable: the next folder may have it.
		}
	}
	return undefined;
}
