import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

/**
 * Where `npm run build` writes the pages' scripts and styles (scripts/build-ui.mjs). The path is the same from
 * `src/ui/`, `dist/ui/` and the bundled command line in `dist/bin/`: each sits two levels below the package root.
 */
const assetsDirectory = new URL('../../dist/ui/public/', import.meta.url);

/** A file as served: its bytes, gzipped once, and an entity tag. */
export interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly gzip: Buffer;
  readonly etag: string;
}

const contentTypes: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

export function asset(type: string, body: Buffer | string): Asset {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
  return { type, body: bytes, gzip: gzipSync(bytes, { level: 9 }), etag };
}

/** The built files, read and compressed on first use and then kept (a few hundred KiB, mostly the renderer). */
export class AssetStore {
  readonly #cache = new Map<string, Asset>();

  constructor(private readonly directory: URL = assetsDirectory) {}

  /** The file `name` of the build, or undefined when it is not there (the package was not built). */
  get(name: string): Asset | undefined {
    const cached = this.#cache.get(name);
    if (cached !== undefined) return cached;
    try {
      const bytes = readFileSync(new URL(name, this.directory));
      const found = asset(contentTypes[name.split('.').at(-1) ?? ''] ?? 'application/octet-stream', bytes);
      this.#cache.set(name, found);
      return found;
    } catch {
      return undefined;
    }
  }
}

/** Writes an asset: gzipped when the client accepts it, 304 when the client has it already, no body for HEAD. */
export function sendAsset(
  req: IncomingMessage,
  res: ServerResponse,
  file: Asset,
  headers: Readonly<Record<string, string>>,
  status = 200,
): void {
  const common = { ...headers, etag: file.etag, vary: 'accept-encoding' };
  if (status === 200 && req.headers['if-none-match'] === file.etag) {
    res.writeHead(304, common);
    res.end();
    return;
  }
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
  const body = gzip ? file.gzip : file.body;
  res.writeHead(status, {
    ...common,
    'content-type': file.type,
    'content-length': String(body.length),
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
