import type { OpenAPIV3_1 } from 'openapi-types';
import { atPointer } from '../spec/loadDocument.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object';

/**
 * A copy of `document` in which every `$ref` into another document (`user-group-service.yaml#/components/schemas/X`)
 * points at a copy of that schema in the document's own components, as a renderer given one document in a page
 * needs (Redoc resolves no other file there). A copied schema keeps its name, or takes the other document's
 * `prefix` when the name is taken (the admin document has an `ErrorCode` of its own); the schemas it refers to
 * come along the same way.
 */
export function inlineReferences(
  document: OpenAPIV3_1.Document,
  others: ReadonlyMap<string, { readonly document: OpenAPIV3_1.Document; readonly prefix: string }>,
): OpenAPIV3_1.Document {
  const copy = structuredClone(document);
  copy.components ??= {};
  copy.components.schemas ??= {};
  const schemas = copy.components.schemas as Json;
  const names = new Map<string, string>();

  const localName = (file: string, pointer: string): string => {
    const key = `${file}#${pointer}`;
    let name = names.get(key);
    if (name !== undefined) return name;
    const other = others.get(file);
    const target = atPointer(other?.document, pointer);
    if (other === undefined || target === undefined || !pointer.startsWith('/components/schemas/'))
      throw new Error(`user-group-mock: cannot inline the reference ${key}`);
    const own = pointer.split('/').at(-1) as string;
    name = own in schemas ? `${other.prefix}${own}` : own;
    names.set(key, name);
    const schema = structuredClone(target);
    schemas[name] = schema;
    rewrite(schema, file);
    return name;
  };

  /** `within`: the file whose local `#/…` references the node's own references are (undefined: the document). */
  function rewrite(node: unknown, within: string | undefined): void {
    if (Array.isArray(node)) {
      for (const item of node) rewrite(item, within);
      return;
    }
    if (!isObject(node)) return;
    const ref = node.$ref;
    if (typeof ref === 'string') {
      const [file = '', fragment = ''] = ref.split('#');
      const from = file === '' ? within : file;
      if (from !== undefined) node.$ref = `#/components/schemas/${localName(from, fragment)}`;
    }
    for (const [key, child] of Object.entries(node)) if (key !== '$ref') rewrite(child, within);
  }

  rewrite(copy, undefined);
  return copy;
}
