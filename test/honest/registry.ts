import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A package as its author wrote it: name, version and files (package.json is made from the first two). */
export interface PackageFiles {
	readonly name: string;
	readonly version: string;
	readonly files: Readonly<Record<string, string>>;
}

/** `pkg` packed as `npm pack` packs it, a gzipped tar of `package/`, at `file`: its bytes. */
export function packTarball(pkg: PackageFiles, file: string): Buffer {
	const stage = mkdtempSync(join(tmpdir(), "crew-pack-"));
	const root = join(stage, "package");
	const files = {
		"package.json": JSON.stringify({ name: pkg.name, version: pkg.version, main: "index.js" }),
		...pkg.files,
	};
	for (const [name, text] of Object.entries(files)) {
		mkdirSync(dirname(join(root, name)), { recursive: true });
		writeFileSync(join(root, name), text);
	}
	mkdirSync(dirname(file), { recursive: true });
	execFileSync("tar", ["-czf", file, "-C", stage, "package"]);
	return readFileSync(file);
}

/** How long a client may keep what it fetched, as npm's public registry says: a tarball never changes. */
const TARBALL_CACHING = "public, immutable, max-age=31557600";
const DOCUMENT_CACHING = "public, max-age=300";

/**
 * An npm registry on 127.0.0.1 serving `packages`, as a company mirror would: each package's
 * document and its tarball, and nothing else (404). Counts the tarballs it served, so a test can
 * tell an install from the cache from one over the network.
 */
export class LocalRegistry {
	readonly tarballsServed: string[] = [];
	readonly #server: Server;

	private constructor(server: Server) {
		this.#server = server;
	}

	static async start(packages: readonly PackageFiles[]): Promise<LocalRegistry> {
		const stage = mkdtempSync(join(tmpdir(), "crew-registry-"));
		const tarballs = new Map<string, Buffer>();
		const documents = new Map<string, (base: string) => unknown>();
		for (const pkg of packages) {
			const file = `${pkg.name}-${pkg.version}.tgz`;
			const bytes = packTarball(pkg, join(stage, file));
			tarballs.set(`/${pkg.name}/-/${file}`, bytes);
			const dist = (base: string) => ({
				tarball: `${base}/${pkg.name}/-/${file}`,
				integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
				shasum: createHash("sha1").update(bytes).digest("hex"),
			});
			documents.set(`/${pkg.name}`, (base) => ({
				name: pkg.name,
				"dist-tags": { latest: pkg.version },
				versions: { [pkg.version]: { name: pkg.name, version: pkg.version, main: "index.js", dist: dist(base) } },
			}));
		}
		let registry: LocalRegistry | undefined;
		const server = createServer((request, response) => {
			const path = decodeURIComponent((request.url ?? "/").split("?")[0] as string);
			const base = `http://${request.headers.host}`;
			const tarball = tarballs.get(path);
			const document = documents.get(path);
			if (tarball) {
				registry?.tarballsServed.push(path);
				response
					.writeHead(200, { "content-type": "application/octet-stream", "cache-control": TARBALL_CACHING })
					.end(tarball);
			} else if (document) {
				const headers = { "content-type": "application/json", "cache-control": DOCUMENT_CACHING };
				response.writeHead(200, headers).end(JSON.stringify(document(base)));
			} else response.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
		});
		await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
		registry = new LocalRegistry(server);
		return registry;
	}

	get port(): number {
		return (this.#server.address() as AddressInfo).port;
	}

	get url(): string {
		return `http://127.0.0.1:${this.port}/`;
	}

	close(): Promise<void> {
		this.#server.closeAllConnections();
		return new Promise((done) => this.#server.close(() => done()));
	}
}
