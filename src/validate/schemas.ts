import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenAPIV3_1 } from 'openapi-types';

const require = createRequire(import.meta.url);

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
  'x-pattern-hint',
  'x-request-hint',
  'x-listed-as',
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
 * every `$ref` resolves inside its own document and no schema is ever copied. Checks compiled at build time
 * (`precompiled`) are used as they are, and Ajv itself is loaded only when something else must be compiled.
 * Lenient mode (for recordings of a real server, which may add fields) removes `additionalProperties: false`.
 */
export class SchemaRegistry {
  #strict: Ajv2020 | undefined;
  #lenient: Ajv2020 | undefined;
  readonly #documents = new Map<string, OpenAPIV3_1.Document>();
  readonly #compiled = new Map<string, ValidateFunction>();

  register(
    id: string,
    document: OpenAPIV3_1.Document,
    precompiled?: ReadonlyMap<string, ValidateFunction>,
  ): void {
    this.#documents.set(id, document);
    for (const [pointer, validate] of precompiled ?? []) this.#compiled.set(`${id}#${pointer}`, validate);
    this.#strict?.addSchema(document as object, id);
  }

  check(id: string, schemaPointer: string, options: { lenient?: boolean } = {}): SchemaCheck {
    const lenient = options.lenient === true;
    const key = `${lenient ? 'lenient:' : ''}${id}#${schemaPointer}`;
    let validate = this.#compiled.get(key);
    if (validate === undefined) {
      validate = this.#ajv(lenient).getSchema(`${id}#${schemaPointer}`);
      if (validate === undefined) throw new Error(`user-group-mock: no schema at ${id}#${schemaPointer}`);
      this.#compiled.set(key, validate);
    }
    const compiled = validate;
    return (value) => (compiled(value) ? [] : (compiled.errors ?? []));
  }

  /** The Ajv over every document registered, made on first use; lenient, over copies without closed objects. */
  #ajv(lenient: boolean): Ajv2020 {
    if (!lenient) {
      this.#strict ??= ajvOver(this.#documents);
      return this.#strict;
    }
    this.#lenient ??= ajvOver(new Map([...this.#documents].map(([id, d]) => [id, withoutClosedObjects(d)])));
    return this.#lenient;
  }
}

function ajvOver(documents: ReadonlyMap<string, unknown>): Ajv2020 {
  const ajv = createAjv();
  for (const [id, document] of documents) ajv.addSchema(document as object, id);
  return ajv;
}

/**
 * The one Ajv configuration, for compiling at run time and (with `source`) for the code generated at build time
 * (`scripts/build-validators.mjs`). Ajv is required here, on first use, so that a server whose checks were
 * precompiled never loads it.
 */
export function createAjv(options: { source?: boolean } = {}): Ajv2020 {
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = require('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    // The documents are checked by Redocly and swagger-parser in the test suite; checking them against the
    // meta-schema again at every start would cost more than compiling the schemas the server uses.
    validateSchema: false,
    ...(options.source === true ? { code: { source: true } } : {}),
  });
  ajv.addVocabulary(openapiVocabulary);
  addFormats(ajv);
  return ajv;
}

/** A deep copy of a document in which no object schema forbids extra properties. */
const withoutClosedObjects = (document: unknown): unknown =>
  JSON.parse(JSON.stringify(document), (key, value) =>
    key === 'additionalProperties' && value === false ? undefined : value,
  );
