import fc from 'fast-check';
import { JSONSchemaFaker } from 'json-schema-faker';
import { validateRequest } from '../../src/index.js';
import { forbiddenKeys } from '../../src/validate/jsonValue.js';
import { apiHeaders, methodOf, type OperationName } from './http.js';
import { Random } from './random.js';
import { requestSchema, type SchemaNode } from './schemas.js';

/**
 * fast-check arbitraries derived from the OpenAPI document: what its JSON Schemas allow, within the body rules
 * its prose adds (no `__proto__`/`constructor`/`prototype` keys, well-formed Unicode, finite numbers, shallow
 * nesting). Strings range over ASCII, composed graphemes and the whole of Unicode.
 */
const codePoints = (s: string): number => [...s].length;
const wellFormed = (s: string): boolean => s.isWellFormed();

function freeString(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const generated = Math.min(maxLength, 40);
  return fc
    .oneof(
      fc.string({ unit: 'grapheme-ascii', minLength, maxLength: generated }),
      fc.string({ unit: 'grapheme', minLength, maxLength: generated }),
      fc.string({ unit: 'binary', minLength, maxLength: generated }),
      ...(Number.isFinite(maxLength) ? [fc.string({ unit: 'binary', minLength: maxLength, maxLength })] : []),
    )
    .filter(wellFormed);
}

function stringArbitrary(schema: SchemaNode): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
  const lengthOk = (s: string): boolean => codePoints(s) >= min && codePoints(s) <= max;
  if (schema.pattern === undefined) return freeString(min, max).filter(lengthOk);
  const pattern = new RegExp(schema.pattern, 'u');
  const matching = fc.stringMatching(pattern).filter((s) => lengthOk(s) && wellFormed(s));
  // A permissive pattern (a character class to avoid) also gets the free strings that match it; a strict one
  // (the 64-hex token) only what fast-check builds from the pattern itself.
  const free = freeString(min, max);
  const permissive = fc.sample(free, { numRuns: 100, seed: 1 }).filter((s) => pattern.test(s)).length >= 50;
  return permissive
    ? fc.oneof(
        matching,
        free.filter((s) => pattern.test(s) && lengthOk(s)),
      )
    : matching;
}

const objectKey = freeString(0, 20).filter((k) => !forbiddenKeys.has(k));

/** Any number JSON text can carry into a double: small integers, safe integers, and the whole finite range. */
const anyNumber = fc.oneof(
  fc.maxSafeInteger(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e300, -1.7976931348623157e308, 1.29020780431846e16, 2 ** 60, Number.MIN_VALUE),
);

/** Any JSON value the body rules allow, a few levels deep. */
export const freeJsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    fc.constant(null),
    fc.boolean(),
    anyNumber,
    freeString(0, 40),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(objectKey, tie('value'), { maxKeys: 4, noNullPrototype: true }),
  ),
})).value;

/** An arbitrary for the values a schema allows (the subset of JSON Schema the document uses). */
export function arbitraryFor(schema: SchemaNode): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  if (schema.oneOf !== undefined) return fc.oneof(...schema.oneOf.map(arbitraryFor));
  if (Array.isArray(schema.type))
    return fc.oneof(...schema.type.map((type) => arbitraryFor({ ...schema, type })));
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: 2 ** 31 - 1 });
    case 'number':
      return anyNumber;
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'object':
      return objectArbitrary(schema);
    default:
      return freeJsonValue;
  }
}

function objectArbitrary(schema: SchemaNode): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const named = fc.record(
    Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, arbitraryFor(s)])),
    { requiredKeys: [...(schema.required ?? [])], noNullPrototype: true },
  );
  const extra = schema.additionalProperties;
  const more =
    extra === undefined || extra === false
      ? fc.constant({})
      : fc.dictionary(
          objectKey.filter((k) => !(k in properties)),
          extra === true ? freeJsonValue : arbitraryFor(extra),
          { maxKeys: 5, noNullPrototype: true },
        );
  return fc
    .tuple(more, named)
    .map(([a, b]) => ({ ...a, ...b }))
    .filter((o) => Object.keys(o).length >= (schema.minProperties ?? 0));
}

/** json-schema-faker's idea of a valid body, with fast-check choosing the seed (kept only when valid). */
export function fakerBody(operation: OperationName): fc.Arbitrary<Record<string, unknown>> {
  const schema = requestSchema(operation);
  return fc
    .integer({ min: 1, max: 2 ** 31 - 2 })
    .map((seed) => {
      const random = new Random(seed);
      JSONSchemaFaker.option({ random: () => random.next(), alwaysFakeOptionals: random.chance(0.5) });
      return JSONSchemaFaker.generate(schema as Parameters<typeof JSONSchemaFaker.generate>[0]) as Record<
        string,
        unknown
      >;
    })
    .filter(
      (body) =>
        validateRequest({ method: methodOf[operation], path: '/api/user', headers: headerObject(), body }).ok,
    );
}

const headerObject = (): Record<string, string> => Object.fromEntries(apiHeaders());

/** A valid request body for the operation: derived from its schema, or from json-schema-faker. */
export const validBody = (operation: OperationName): fc.Arbitrary<Record<string, unknown>> =>
  fc.oneof(
    { weight: 3, arbitrary: arbitraryFor(requestSchema(operation)) as fc.Arbitrary<Record<string, unknown>> },
    { weight: 1, arbitrary: fakerBody(operation) },
  );
