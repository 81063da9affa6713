import type { OpenAPIV3_1 } from 'openapi-types';
import { serviceDocument } from './document.js';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options' | 'trace';
const httpMethods: readonly HttpMethod[] = [
  'get',
  'put',
  'post',
  'delete',
  'patch',
  'head',
  'options',
  'trace',
];

/** One operation of the document, with JSON pointers to its schemas (never copies of them). */
export interface Operation {
  readonly operationId: string;
  readonly method: Uppercase<HttpMethod>;
  readonly path: string;
  /** JSON pointer (within the document) to the request body schema. */
  readonly requestSchema: string | undefined;
  /** Status code (or `default`) to the JSON pointer of that response's schema. */
  readonly responseSchemas: ReadonlyMap<string, string>;
}

const escapePointer = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Parses a document's paths into its operations. */
export function listOperations(document: OpenAPIV3_1.Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of httpMethods) {
      const operation = item?.[method];
      if (operation?.operationId === undefined) continue;
      const base = `/paths/${escapePointer(path)}/${method}`;
      const requestBody = operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
      const responseSchemas = new Map<string, string>();
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const ref = (response as OpenAPIV3_1.ReferenceObject).$ref;
        const pointer = ref === undefined ? `${base}/responses/${status}` : ref.slice(1);
        responseSchemas.set(status, `${pointer}/content/application~1json/schema`);
      }
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase() as Uppercase<HttpMethod>,
        path,
        requestSchema: requestBody?.content?.['application/json']
          ? `${base}/requestBody/content/application~1json/schema`
          : undefined,
        responseSchemas,
      });
    }
  }
  return operations;
}

export type Route =
  | { readonly kind: 'operation'; readonly operation: Operation }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not-found'; readonly known: readonly string[] };

/** Matches a method and path against a list of operations (paths are literal: the service has no templates). */
export function createRouter(operations: readonly Operation[]): (method: string, path: string) => Route {
  const byPath = new Map<string, Map<string, Operation>>();
  for (const operation of operations) {
    const methods = byPath.get(operation.path) ?? new Map<string, Operation>();
    methods.set(operation.method, operation);
    byPath.set(operation.path, methods);
  }
  const known = [...byPath.keys()];
  return (method, path) => {
    const methods = byPath.get(path);
    if (methods === undefined) return { kind: 'not-found', known };
    const operation = methods.get(method.toUpperCase());
    if (operation === undefined) return { kind: 'method-not-allowed', allow: [...methods.keys()] };
    return { kind: 'operation', operation };
  };
}

let serviceOperations: Operation[] | undefined;
/** The operations of the User Group Service document. */
export const operations = (): readonly Operation[] => {
  serviceOperations ??= listOperations(serviceDocument());
  return serviceOperations;
};

export type OperationId = 'getOrCreateUserGroup' | 'updateUserGroup' | 'rotateUserGroupToken';
