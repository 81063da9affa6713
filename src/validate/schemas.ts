import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * OpenAPI keywords that mean nothing to validation: those a schema may carry, and the document's own top-level
 * fields (Ajv compiles the document's root when a pointer into it is first resolved).
 */
const openapiVocabulary = [
  'example',
  'discriminator',
  'xml',
  'externalDocs',
  'x-pattern-message',
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'paths',
  'webhooks',
  'components',
  'security',
  'tags',
];

export type SchemaCheck = (value: unknown) => readonly ErrorObject[];

/**
 * Compiles schemas out of OpenAPI documents, by JSON pointer, once each. The documents are registered whole, so
 * every `$ref` resolves inside its own document and no schema is ever copied.
 * Lenient mode (for recordings of a real server, which may add fields) removes `additionalProperties: false`.
 */
export class SchemaRegistry {
  readonly #strict = createAjv();
  #lenient: Ajv2020 | undefined;
  readonly #documents = new Map<string, OpenAPIV3_1.Document>();
  readonly #compiled = new Map<string, ValidateFunction>();

  register(id: string, document: OpenAPIV3_1.Document): void {
    this.#documents.set(id, document);
    this.#strict.addSchema(document as object, id);
  }

  check(id: string, schemaPointer: string, options: { lenient?: boolean } = {}): SchemaCheck {
    const lenient = options.lenient === true;
    const key = `${lenient ? 'lenient:' : ''}${id}#${schemaPointer}`;
    let validate = this.#compiled.get(key);
    if (validate === undefined) {
      const ajv = lenient ? this.#lenientAjv() : this.#strict;
      validate = ajv.getSchema(`${id}#${schemaPointer}`);
      if (validate === undefined) throw new Error(`user-group-mock: no schema at ${id}#${schemaPointer}`);
      this.#compiled.set(key, validate);
    }
    const compiled = validate;
    return (value) => (compiled(value) ? [] : (compiled.errors ?? []));
  }

  #lenientAjv(): Ajv2020 {
    if (this.#lenient === undefined) {
      this.#lenient = createAjv();
      for (const [id, document] of this.#documents)
        this.#lenient.addSchema(withoutClosedObjects(document) as object, id);
    }
    return this.#lenient;
  }
}

function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    // The documents are checked by Redocly and swagger-parser in the test suite; checking them against the
    // meta-schema again at every start would cost more than compiling the schemas the server uses.
    validateSchema: false,
  });
  ajv.addVocabulary(openapiVocabulary);
  addFormats(ajv);
  return ajv;
}

/** A deep copy of a document in which no object schema forbids extra properties. */
function withoutClosedObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutClosedObjects);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'additionalProperties' && value === false) continue;
    copy[key] = withoutClosedObjects(value);
  }
  return copy;
}
