import type { OpenAPIV3_1 } from 'openapi-types';
import { pointer } from './jsonPointer.js';
import { atPointer, serviceDocument } from './loadDocument.js';
import { type PathTemplate, pathTemplate } from './pathTemplate.js';

const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
export type HttpMethod = (typeof httpMethods)[number];

/** One operation of the document, with JSON pointers to its schemas (never copies of them). */
export interface Operation {
  readonly operationId: string;
  /** What people call it (`x-short-name`, e.g. `get-or-create`), for messages; the operationId without one. */
  readonly shortName: string;
  readonly method: Uppercase<HttpMethod>;
  readonly path: string;
  /** JSON pointer (within the document) to the request body schema. */
  readonly requestSchema: string | undefined;
  /** Status code (or `default`) to the JSON pointer of that response's schema. */
  readonly responseSchemas: ReadonlyMap<string, string>;
  /** The path and query parameters (the path item's and the operation's own), in document order. */
  readonly parameters: readonly OperationParameter[];
}

export interface OperationParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  /** JSON pointer (within the document) to the parameter's schema. */
  readonly schema: string;
}

/** Parses a document's paths into its operations. */
export function listOperations(document: OpenAPIV3_1.Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of httpMethods) {
      const operation = item?.[method];
      if (operation?.operationId === undefined) continue;
      const base = pointer(pointer('/paths', path), method);
      const requestBody = operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
      const responseSchemas = new Map<string, string>();
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const ref = (response as OpenAPIV3_1.ReferenceObject).$ref;
        const at = ref === undefined ? `${base}/responses/${status}` : ref.slice(1);
        responseSchemas.set(status, `${at}/content/application~1json/schema`);
      }
      const shortName = (operation as { 'x-short-name'?: unknown })['x-short-name'];
      operations.push({
        operationId: operation.operationId,
        shortName: typeof shortName === 'string' ? shortName : operation.operationId,
        method: method.toUpperCase() as Uppercase<HttpMethod>,
        path,
        requestSchema: requestBody?.content?.['application/json']
          ? `${base}/requestBody/content/application~1json/schema`
          : undefined,
        responseSchemas,
        parameters: [
          ...parametersAt(document, pointer('/paths', path), item?.parameters),
          ...parametersAt(document, base, operation.parameters),
        ],
      });
    }
  }
  return operations;
}

type ParameterList = OpenAPIV3_1.OperationObject['parameters'];

/** The parameters listed at `base` (a path item or an operation), each resolved through a local `$ref`. */
function parametersAt(
  document: OpenAPIV3_1.Document,
  base: string,
  list: ParameterList,
): OperationParameter[] {
  return (list ?? []).map((entry, index) => {
    const ref = (entry as OpenAPIV3_1.ReferenceObject).$ref;
    const at = ref === undefined ? `${base}/parameters/${index}` : ref.slice(1);
    const parameter = atPointer(document, at) as OpenAPIV3_1.ParameterObject | undefined;
    if (parameter === undefined) throw new Error(`user-group-mock: unresolved parameter ${ref}`);
    return {
      name: parameter.name,
      in: parameter.in as OperationParameter['in'],
      required: parameter.required === true,
      schema: `${at}/schema`,
    };
  });
}

export type Route =
  | {
      readonly kind: 'operation';
      readonly operation: Operation;
      /** The path parameters, decoded (empty for a path without templates). */
      readonly params: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not-found'; readonly known: readonly string[] };

interface PathEntry {
  readonly template: PathTemplate;
  readonly methods: Map<string, Operation>;
}

const noParams: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Matches a method and path against a list of operations. Literal paths are looked up directly and win over
 * templates such as `/__admin/tokens/{token}`, which are tried in document order.
 */
export function createRouter(operations: readonly Operation[]): (method: string, path: string) => Route {
  const byPath = new Map<string, PathEntry>();
  for (const operation of operations) {
    const entry = byPath.get(operation.path) ?? {
      template: pathTemplate(operation.path),
      methods: new Map(),
    };
    entry.methods.set(operation.method, operation);
    byPath.set(operation.path, entry);
  }
  const known = [...byPath.keys()];
  const templated = [...byPath.values()].filter((entry) => !entry.template.literal);
  return (method, path) => {
    let entry = byPath.get(path);
    let params = noParams;
    if (entry === undefined || !entry.template.literal) {
      entry = undefined;
      for (const candidate of templated) {
        const found = candidate.template.match(path);
        if (found !== undefined) {
          entry = candidate;
          params = found;
          break;
        }
      }
    }
    if (entry === undefined) return { kind: 'not-found', known };
    const operation = entry.methods.get(method) ?? entry.methods.get(method.toUpperCase());
    if (operation === undefined) return { kind: 'method-not-allowed', allow: [...entry.methods.keys()] };
    return { kind: 'operation', operation, params };
  };
}

/** `compute`, made to run once per operation: what is derived from an operation's schemas, kept with it. */
export function perOperation<V>(compute: (operation: Operation) => V): (operation: Operation) => V {
  const derived = new WeakMap<Operation, V>();
  return (operation) => {
    let value = derived.get(operation);
    if (value === undefined && !derived.has(operation)) {
      value = compute(operation);
      derived.set(operation, value);
    }
    return value as V;
  };
}

let serviceOperations: Operation[] | undefined;
/** The operations of the User Group Service document. */
export const operations = (): readonly Operation[] => {
  serviceOperations ??= listOperations(serviceDocument());
  return serviceOperations;
};

export type OperationId = keyof import('./openapi-types.generated.js').operations;
