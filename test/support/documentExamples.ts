import { readdirSync, readFileSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parseYaml, serviceDocumentUrl } from '../../src/spec/loadDocument.js';
import { listOperations } from '../../src/spec/operations.js';

/** The groups the document's examples refer to; start the mock with `--fixtures` on it to run the examples. */
export const examplesFixtures = new URL('../../fixtures/examples.json', import.meta.url).pathname;

/**
 * Specmatic's external examples (`--examples fixtures/specmatic`): the error cases whose requests break the
 * request schema or carry their own Authorization header, which inline examples cannot hold.
 */
export const externalExamplesDirectory = new URL('../../fixtures/specmatic/', import.meta.url).pathname;

/** A request and the response it gets: a same-named pair of examples in one operation, or an external example. */
export interface ExamplePair {
  readonly method: string;
  readonly path: string;
  readonly name: string;
  /** Headers the example sets itself; Specmatic adds the others (Authorization from the TokenAuth scheme). */
  readonly headers: Readonly<Record<string, string>>;
  readonly request: unknown;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly response: unknown;
}

/** An example that Specmatic ignores in one operation, because that operation has no example of that name. */
export interface UnpairedExample {
  readonly operationId: string;
  readonly side: 'request' | 'response';
  readonly name: string;
  /** The response example's status and value (response side only). */
  readonly status?: number;
  readonly value?: unknown;
}

type Examples = Record<string, { value?: unknown }>;

/** The value at a JSON pointer of the document (`/components/responses/NotFound/...`). */
function at(document: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
}

/**
 * Pairs the examples of `openapi/user-group-service.yaml` the way Specmatic does: within one operation, a request
 * example and a response example (of any status) with the same name. Read from the YAML itself, as Specmatic
 * reads it, never from a build. A response shared through `components/responses` offers its examples to every
 * operation that refers to it; each operation pairs only the names it has request examples for.
 */
export function documentExamples(): {
  pairs: ExamplePair[];
  unpaired: UnpairedExample[];
  /** Each operation's response example names that appear under more than one status (ambiguous pairs). */
  ambiguous: string[];
} {
  const document = parseYaml(readFileSync(serviceDocumentUrl, 'utf8')) as OpenAPIV3_1.Document;
  const pairs: ExamplePair[] = [];
  const unpaired: UnpairedExample[] = [];
  const ambiguous: string[] = [];
  for (const operation of listOperations(document)) {
    const requestExamples = (at(document, `${operation.requestSchema?.replace(/\/schema$/, '')}/examples`) ??
      {}) as Examples;
    const responseExamples = new Map<string, { status: number; value: unknown }>();
    for (const [status, schema] of operation.responseSchemas) {
      const examples = (at(document, `${schema.replace(/\/schema$/, '')}/examples`) ?? {}) as Examples;
      for (const [name, example] of Object.entries(examples)) {
        if (responseExamples.has(name)) ambiguous.push(`${operation.operationId} ${name}`);
        responseExamples.set(name, { status: Number(status), value: example.value });
      }
    }
    for (const [name, example] of Object.entries(requestExamples)) {
      const response = responseExamples.get(name);
      if (response === undefined) {
        unpaired.push({ operationId: operation.operationId, side: 'request', name });
        continue;
      }
      pairs.push({
        method: operation.method,
        path: operation.path,
        name,
        headers: {},
        request: example.value,
        status: response.status,
        responseHeaders: {},
        response: response.value,
      });
    }
    for (const [name, { status, value }] of responseExamples) {
      if (!(name in requestExamples))
        unpaired.push({ operationId: operation.operationId, side: 'response', name, status, value });
    }
  }
  return { pairs, unpaired, ambiguous };
}

interface ExternalExample {
  readonly 'http-request': {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: unknown;
  };
  readonly 'http-response': { status: number; headers?: Record<string, string>; body?: unknown };
}

/** The external examples in fixtures/specmatic, each named after its file as Specmatic names it. */
export function externalExamples(): ExamplePair[] {
  return readdirSync(externalExamplesDirectory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const example = JSON.parse(
        readFileSync(`${externalExamplesDirectory}${file}`, 'utf8'),
      ) as ExternalExample;
      const { method, path, headers = {}, body } = example['http-request'];
      const response = example['http-response'];
      return {
        method,
        path,
        name: file.replace(/\.json$/, ''),
        headers,
        request: body,
        status: response.status,
        responseHeaders: response.headers ?? {},
        response: response.body,
      };
    });
}
