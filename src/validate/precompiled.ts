import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenAPIV3_1 } from 'openapi-types';

/**
 * Where `npm run build` writes the request checks it compiled: `dist/validate/`, named from one folder up so that
 * the bundled command line (`dist/bin/`) finds it too.
 */
export const precompiledUrl = new URL('../validate/precompiled.cjs', import.meta.url);

export const documentDigest = (document: OpenAPIV3_1.Document): string =>
  createHash('sha256').update(JSON.stringify(document)).digest('hex');

/**
 * The checks compiled at build time by Ajv's standalone code generation (`scripts/build-validators.mjs`), by schema
 * pointer; undefined when there are none (running from the sources) or when they were compiled from another version
 * of the document (a stale build), in which case the caller compiles.
 */
export function precompiledChecks(
  document: OpenAPIV3_1.Document,
  url: URL = precompiledUrl,
): ReadonlyMap<string, ValidateFunction> | undefined {
  if (!existsSync(url)) return undefined;
  const { documentDigest: digest, ...checks } = createRequire(import.meta.url)(fileURLToPath(url)) as Record<
    string,
    unknown
  >;
  if (digest !== documentDigest(document)) return undefined;
  return new Map(Object.entries(checks as Record<string, ValidateFunction>));
}
