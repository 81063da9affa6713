import { readFileSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parse } from 'yaml';

/** Where the hand-authored OpenAPI documents live: `openapi/` at the package root. */
export const openapiDirectory = new URL('../../openapi/', import.meta.url);

export const serviceDocumentUrl = new URL('user-group-service.yaml', openapiDirectory);
export const adminDocumentUrl = new URL('admin.yaml', openapiDirectory);

const cache = new Map<string, OpenAPIV3_1.Document>();

/** Reads and parses one OpenAPI document, once per process. */
export function loadDocument(url: URL): OpenAPIV3_1.Document {
  let document = cache.get(url.href);
  if (document === undefined) {
    document = parse(readFileSync(url, 'utf8')) as OpenAPIV3_1.Document;
    cache.set(url.href, document);
  }
  return document;
}

export const serviceDocument = (): OpenAPIV3_1.Document => loadDocument(serviceDocumentUrl);
