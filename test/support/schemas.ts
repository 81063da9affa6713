import { serviceDocument } from '../../src/spec/loadDocument.js';
import { operations } from '../../src/spec/operations.js';
import type { OperationName } from './http.js';

/** A JSON Schema node as the document writes it, `$ref`s replaced by their targets. */
export interface SchemaNode {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | SchemaNode;
  readonly minProperties?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly oneOf?: readonly SchemaNode[];
  readonly [keyword: string]: unknown;
}

/** Resolves a JSON pointer (`/a/b~1c`) inside the service document. */
function at(pointer: string): unknown {
  let node: unknown = serviceDocument();
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** A deep copy of a schema with every local `$ref` replaced by the schema it points to. */
export function dereference(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dereference);
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as { $ref?: string }).$ref;
  if (ref !== undefined) return dereference(at(ref.slice(1)));
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dereference(v)]));
}

/** The request body schema of an operation, straight from the document. */
export function requestSchema(operation: OperationName): SchemaNode {
  const found = operations().find((o) => o.operationId === operation);
  if (found?.requestSchema === undefined) throw new Error(`no request schema for ${operation}`);
  return dereference(at(found.requestSchema)) as SchemaNode;
}
