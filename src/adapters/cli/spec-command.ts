// What `crew spec import|list|show|rm` do: the specs a project's tasks are held to, as pi-crew keeps them.

import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { findProject } from "../../config/project.js";
import { CrewError, ErrorCode } from "../../core/errors.js";
import { parseJsonText } from "../../core/json-text.js";
import { inert } from "../../core/terminal-text.js";
import { type SpecRecord, specRecord } from "../../specs/spec-record.js";
import { SpecStore, type StoredSpec } from "../../specs/spec-store.js";
import { Exit } from "./exit-codes.js";
import { print } from "./print.js";

function store(): SpecStore {
	const project = findProject(process.cwd());
	return new SpecStore(project.root, project.crewDir);
}

export async function importSpec(file: string, flags: { json?: boolean }): Promise<number> {
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (error) {
		throw new CrewError(ErrorCode.NotFound, `cannot read ${file}: ${(error as Error).message}`);
	}
	const minted = store().mint(
		specRecord(parseJsonText(text, file), file),
		file,
		process.env.USER || userInfo().username || "user",
	);
	if (flags.json) print(`${JSON.stringify(specJson(minted))}\n`);
	else
		print(inert(`imported spec ${minted.record.id} v${minted.record.version}, trusted as it is now: ${minted.file}\n`));
	return Exit.Ok;
}

export async function listSpecs(flags: { json?: boolean }): Promise<number> {
	const { specs, broken } = store().list();
	if (flags.json) {
		print(`${JSON.stringify({ specs: specs.map(specJson), broken })}\n`);
		return Exit.Ok;
	}
	if (specs.length === 0 && broken.length === 0) print("no specs: crew spec import <file> adds one\n");
	for (const s of specs) {
		const musts = s.record.requirements.filter((r) => r.priority === "must").length;
		print(
			inert(
				`${s.record.id}  v${s.record.version}  ${trustText(s)}  ${s.record.requirements.length} requirements (${musts} must)  ${s.record.title ?? ""}\n`,
			),
		);
	}
	for (const b of broken) print(inert(`${b.file}  broken: ${b.error}\n`));
	return Exit.Ok;
}

export async function showSpec(id: string, flags: { json?: boolean }): Promise<number> {
	const found = store().find(id);
	if (!found) throw new CrewError(ErrorCode.NotFound, `no spec '${id}' in this repository: crew spec list shows them`);
	if (flags.json) {
		print(`${JSON.stringify({ ...specJson(found), record: found.record })}\n`);
		return Exit.Ok;
	}
	print(inert(specText(found)));
	return Exit.Ok;
}

export async function removeSpec(id: string): Promise<number> {
	const removed = store().remove(id);
	if (!removed)
		throw new CrewError(ErrorCode.NotFound, `no spec '${id}' of yours in this repository: crew spec list shows them`);
	print(`removed spec ${id}\n`);
	return Exit.Ok;
}

function trustText(s: StoredSpec): string {
	if (s.minted) return "trusted";
	return s.store === "user" ? "untrusted (changed since it was imported)" : "untrusted (in the repository)";
}

function specJson(s: StoredSpec): object {
	const { id, version, title } = s.record;
	return { id, version, title: title ?? null, store: s.store, trusted: s.minted, file: s.file };
}

function specText(s: StoredSpec): string {
	const record: SpecRecord = s.record;
	const lines = [
		`spec ${record.id} v${record.version}  ${trustText(s)}${record.title ? `  ${record.title}` : ""}`,
		`  file: ${s.file}`,
	];
	for (const r of record.requirements) {
		lines.push(`  ${r.id} (${r.priority}): ${r.text}`);
		for (const a of record.acceptance.filter((c) => c.requirementId === r.id)) {
			const command = a.command ? `  $ ${a.command}${a.idempotent ? "" : " (not idempotent: never re-run)"}` : "";
			lines.push(`    ${a.id}: ${a.check}${command}`);
		}
	}
	return `${lines.join("\n")}\n`;
}
