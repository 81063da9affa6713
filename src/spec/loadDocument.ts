import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import type { OpenAPIV3_1 } from 'openapi-types';

/** Where the hand-authored OpenAPI documents live: `openapi/` at the package root. */
export const openapiDirectory = new URL('../../openapi/', import.meta.url);

/**
 * Where `npm run build` writes each document as JSON (`dist/openapi/`, beside the compiled code). Reading JSON
 * instead of YAML takes the YAML parser off the start-up path; the YAML stays the one source, and a test checks
 * that the built JSON equals it.
 */
export const builtDocumentsDirectory = new URL('../openapi/', import.meta.url);

export const serviceDocumentUrl = new URL('user-group-service.yaml', openapiDirectory);
export const adminDocumentUrl = new URL('admin.yaml', openapiDirectory);

function oncePerUrl<T>(read: (url: URL) => T): (url: URL) => T {
  const cache = new Map<string, T>();
  return (url) => {
    if (!cache.has(url.href)) cache.set(url.href, read(url));
    return cache.get(url.href) as T;
  };
}

/** Reads and parses one OpenAPI document, once per process: the built JSON when there is one, else the YAML. */
export const loadDocument = oncePerUrl((url) => {
  const built = new URL(`${basename(url.pathname, '.yaml')}.json`, builtDocumentsDirectory);
  return (
    existsSync(built) ? JSON.parse(readFileSync(built, 'utf8')) : parseYaml(readFileSync(url, 'utf8'))
  ) as OpenAPIV3_1.Document;
});

/** The text of one document as authored (its YAML file, shipped with the package), read once per process. */
export const documentSource = oncePerUrl((url) => readFileSync(url, 'utf8'));

/** The YAML parser, loaded only when a document is read from its source. */
export function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(text);
}

export const serviceDocument = (): OpenAPIV3_1.Document => loadDocument(serviceDocumentUrl);

/**
 * The node at a JSON pointer (`/paths/~1api~1user/post`, RFC 6901: `~1` reads as `/`, `~0` as `~`) within `root`,
 * or undefined where the path leads nowhere.
 */
export function atPointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const segment of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

/**
 * A node of an openapi/ document with its `$ref`s followed (at most 16 hops): `#/…` within the document the node is
 * in (`file`, the service document's by default), `admin.yaml#/…` or `user-group-service.yaml#/…` into that one.
 * `until` stops at a node that already holds what is sought (an `x-request-hint` beside a `$ref`).
 */
export function followRefs(
  node: unknown,
  file = basename(serviceDocumentUrl.pathname),
  until: (node: Readonly<Record<string, unknown>>) => boolean = () => false,
): Readonly<Record<string, unknown>> | undefined {
  let current = node as Readonly<Record<string, unknown>> | undefined;
  let document = file;
  for (let hop = 0; hop < 16 && typeof current?.$ref === 'string' && !until(current); hop++) {
    const [target, fragment = ''] = current.$ref.split('#');
    if (target !== undefined && target !== '') document = target;
    current = atPointer(loadDocument(new URL(document, openapiDirectory)), fragment) as typeof current;
  }
  return current;
}
