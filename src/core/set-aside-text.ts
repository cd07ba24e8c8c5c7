// How crew tells of a git folder a task left in its workspace and crew moved out of it.

import type { SetAside, SetAsideRecord } from "./records.js";

/** What a git folder of `kind` is, in words a person reading an attempt's record knows. */
function gitFolderWords(kind: SetAside["kind"]): string {
	if (kind === "folder") return "nested repository";
	if (kind === "bare") return "git folder";
	return "link to a git folder";
}

/**
 * One git folder crew set aside, as views and logs show it: `nested repository sub/.git moved to
 * <folder>: its config could run programs at your next git command there`.
 */
export function setAsideText(aside: SetAside | SetAsideRecord): string {
	const where = aside.movedTo ? `moved to ${aside.movedTo}` : "removed";
	const whose = "shared" in aside && aside.shared ? " (left while other attempts worked in the same workspace)" : "";
	return `${gitFolderWords(aside.kind)} ${aside.path} ${where}${whose}: its config could run programs at your next git command there`;
}
