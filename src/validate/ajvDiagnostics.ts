import type { ErrorObject } from 'ajv/dist/2020.js';
import { type Diagnostic, diagnostic, place, pointer, type Voice } from './diagnostic.js';
import { editDistance, nearest } from './nearest.js';

/**
 * Turns Ajv's errors into diagnostics a person can act on. Combinators are folded: a failed `anyOf` of `required`
 * becomes "must have at least one of", a failed `oneOf` of types becomes "must be an object or null".
 */
export function diagnosticsFromAjv(
  errors: readonly ErrorObject[],
  base: string,
  voice: Voice = 'request',
): Diagnostic[] {
  if (errors.length === 0) return []; // a valid value: nothing to fold (every answer a proxy judges)
  const consumed = new Set<ErrorObject>();
  // "At least one of … besides" is untrue of a body that has one of them and lacks a required field (minProperties
  // counts every field): only the missing field is said.
  for (const error of errors)
    if (error.keyword === 'minProperties' && hasOptionalField(error)) consumed.add(error);
  // An empty string fails `minLength` and, vacuously, a pattern of allowed characters: the first says it all.
  for (const error of errors)
    if (error.keyword === 'pattern' && error.data === '')
      if (errors.some((e) => e.keyword === 'minLength' && e.instancePath === error.instancePath))
        consumed.add(error);
  const folded = new Map<ErrorObject, Diagnostic[]>();
  errors.forEach((error, index) => {
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') return;
    const children = errors.slice(0, index).filter((e) => !consumed.has(e) && isBranchError(e, error));
    for (const child of children) consumed.add(child);
    // Errors inside the value that a branch given by `$ref` reported (Ajv does not nest them under the combinator).
    const inside = errors.some((e) => e.instancePath.startsWith(`${error.instancePath}/`));
    folded.set(error, foldCombinator(error, children, base, voice, inside));
  });
  // A field spelt another way explains the missing one (`userGroupId` for `user_group_id`): it leads, its fix
  // ("did you mean …?") in the first line. Ajv checks minProperties before required: a missing required field
  // comes next, it is the first thing to fix.
  const misspelt = new Set(errors.filter((e) => misspells(e, errors)));
  const rank = (e: ErrorObject): number => (misspelt.has(e) ? 0 : e.keyword === 'minProperties' ? 2 : 1);
  return errors
    .toSorted((a, b) => rank(a) - rank(b))
    .flatMap((error) => (consumed.has(error) ? [] : (folded.get(error) ?? [describe(error, base, voice)])));
}

/** Whether an unknown field is a required field, missing from the same object, spelt another way. */
function misspells(error: ErrorObject, errors: readonly ErrorObject[]): boolean {
  if (error.keyword !== 'additionalProperties') return false;
  const meant = nearestField(
    String((error.params as { additionalProperty: unknown }).additionalProperty),
    fieldsOf(schemaOf(error)),
  );
  return (
    meant !== undefined &&
    errors.some(
      (e) =>
        e.keyword === 'required' &&
        e.instancePath === error.instancePath &&
        (e.params as { missingProperty: unknown }).missingProperty === meant,
    )
  );
}

/** Whether the object a `minProperties` error is about has a field besides the required ones. */
function hasOptionalField(error: ErrorObject): boolean {
  const data = error.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false;
  const required = requiredOf(schemaOf(error));
  return Object.keys(data).some((key) => !required.has(key));
}

type Schema = Readonly<Record<string, unknown>>;
const schemaOf = (error: ErrorObject): Schema => (error.parentSchema ?? {}) as Schema;
const fieldsOf = (schema: Schema): string[] => Object.keys((schema.properties as object | undefined) ?? {});
const requiredOf = (schema: Schema): Set<string> => new Set((schema.required as string[] | undefined) ?? []);

/**
 * Whether an error came from a branch of a combinator. Ajv lists branch errors just before the combinator's own;
 * a branch that is a `$ref` reports the referenced schema's path, so the instance location decides there.
 */
const isBranchError = (error: ErrorObject, combinator: ErrorObject): boolean =>
  error.schemaPath.startsWith(`${combinator.schemaPath}/`) ||
  (error.instancePath === combinator.instancePath &&
    (error.keyword === 'type' || error.keyword === 'required'));

function foldCombinator(
  error: ErrorObject,
  children: readonly ErrorObject[],
  base: string,
  voice: Voice,
  inside: boolean,
): Diagnostic[] {
  if (children.length === 0) return [];
  const path = base + error.instancePath;
  const at = placeFor(voice, path);
  // A value that is not null failed inside the other branch (mapping {"40": 213}): the errors inside say what is
  // wrong, and "must be null" is not what the sender meant.
  const orNull = (c: ErrorObject): boolean =>
    c.keyword === 'type' &&
    (c.params as { type: unknown }).type === 'null' &&
    c.instancePath === error.instancePath;
  if (inside && error.data !== null && children.every(orNull)) return [];
  if (children.every((c) => c.keyword === 'required')) {
    const fields = children.map((c) => `"${(c.params as { missingProperty: string }).missingProperty}"`);
    return [
      diagnostic(
        'MISSING_FIELD',
        path,
        `${at} must have at least one of ${fields.join(', ')}${voice === 'answer' ? '; the service must send one' : ''}`,
      ),
    ];
  }
  if (children.every((c) => c.keyword === 'type' && c.instancePath === error.instancePath)) {
    const types = children.flatMap((c) => typeNames((c.params as { type: string | string[] }).type));
    return [
      diagnostic(
        'WRONG_TYPE',
        path,
        `${at} must be ${types.join(' or ')}, not ${jsonType(error.data)}${sent(voice, error.data)}`,
      ),
    ];
  }
  return children.map((c) => describe(c, base, voice));
}

/** Where a message says the fault is: `body/user_group_id` in a request, `the answer's user_group.token`. */
function placeFor(voice: Voice, path: string): string {
  if (voice === 'request') return place(path);
  const inBody = path.replace(/^\/body\/?/, '');
  return inBody === '' ? 'the answer' : `the answer's ${inBody.replaceAll('/', '.')}`;
}

/** `; the service sent "ABC…"`, what an answer carried, shortened; nothing for a request. */
/** More values than an enum's message lists before what the service sent (the error codes are 27). */
const longList = 8;

function sent(voice: Voice, value: unknown): string {
  if (voice === 'request') return '';
  const text = JSON.stringify(value) ?? String(value);
  return `; the service sent ${text.length > 72 ? `${text.slice(0, 71)}…` : text}`;
}

const article = (name: string): string => (/^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`);
const typeNames = (type: string | string[]): string[] =>
  (Array.isArray(type) ? type : [type]).map((t) => (t === 'null' ? 'null' : article(t)));
const jsonType = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : article(typeof value);

function describe(error: ErrorObject, base: string, voice: Voice): Diagnostic {
  const path = base + error.instancePath;
  const was = sent(voice, error.data);
  const params = error.params as Record<string, unknown>;
  const schema = schemaOf(error);
  const said = (code: string, message: string, where = path): Diagnostic =>
    diagnostic(code, where, `${placeFor(voice, path)} ${message}`);
  switch (error.keyword) {
    case 'required': {
      const field = String(params.missingProperty);
      const message =
        voice === 'answer'
          ? `lacks the required field "${field}"; the service must send it`
          : `must have required field "${field}"`;
      return said('MISSING_FIELD', message, pointer(path, field));
    }
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      const known = fieldsOf(schema);
      const message =
        voice === 'answer'
          ? `has the field "${field}", which the document does not name${suggest(field, known)}; the service must not send it, unless extra fields are allowed (lenient checking)`
          : `has unknown field "${field}"${suggest(field, known, schema.properties as Record<string, unknown> | undefined)}`;
      return said('UNKNOWN_FIELD', message, pointer(path, field));
    }
    case 'type':
      return said(
        'WRONG_TYPE',
        `must be ${typeNames(params.type as string).join(' or ')}, not ${jsonType(error.data)}${was}`,
      );
    case 'minLength':
      return params.limit === 1
        ? said('TOO_SHORT', `must not be empty${was}`)
        : said('TOO_SHORT', `must have at least ${params.limit} characters${was}`);
    case 'maxLength':
      return said(
        'TOO_LONG',
        `must have at most ${params.limit} characters, not ${characters(String(error.data))}${was}`,
      );
    case 'pattern': {
      const rule = String(schema['x-pattern-message'] ?? `must match ${params.pattern}`);
      const hint = schema['x-pattern-hint'];
      const advice = voice === 'request' && hint !== undefined ? `, ${String(hint)}` : '';
      return said('INVALID_FORMAT', `${rule}${advice}${was}`);
    }
    case 'minProperties': {
      const required = requiredOf(schema);
      const others = fieldsOf(schema).filter((k) => !required.has(k));
      const besides = required.size > 0 ? ` besides ${[...required].map((k) => `"${k}"`).join(', ')}` : '';
      return said(
        'MISSING_FIELD',
        `must have at least one of ${others.map((k) => `"${k}"`).join(', ')}${besides}`,
      );
    }
    case 'enum': {
      const allowed = params.allowedValues as unknown[];
      const meant =
        typeof error.data === 'string'
          ? nearest(
              error.data,
              allowed.filter((value): value is string => typeof value === 'string'),
            )
          : undefined;
      const values = allowed.map((v) => JSON.stringify(v)).join(', ');
      const guess = meant === undefined ? '' : `; did you mean "${meant}"?`;
      // A long list goes last, so that what the service sent is read before it.
      return said(
        'INVALID_VALUE',
        was !== '' && allowed.length > longList
          ? `must be one of the ${allowed.length} values the document lists${was}${guess === '' ? '.' : guess} The values: ${values}`
          : `must be one of ${values}${was}${guess}`,
      );
    }
    case 'const':
      return said('INVALID_VALUE', `must be ${JSON.stringify(params.allowedValue)}${was}`);
    default:
      return said(`SCHEMA_${error.keyword.toUpperCase()}`, `${error.message ?? 'is invalid'}${was}`);
  }
}

/** Characters as `maxLength` counts them (JSON Schema, and so Ajv): code points, not UTF-16 units. */
const characters = (text: string): number => [...text].length;

const squash = (name: string): string => name.toLowerCase().replaceAll(/[^a-z0-9]/g, '');

/** `; did you mean "user_group_id"?` when the unknown field is a known one spelled another way. */
function suggest(
  field: string,
  known: readonly string[],
  properties?: Readonly<Record<string, unknown>>,
): string {
  const match = nearestField(field, known);
  if (match !== undefined) return `; did you mean "${match}"?`;
  // A field the answers name otherwise (`x-listed-as`: a seed's user_group_id is a listing's provided_id).
  const renamed = known.find(
    (k) => (properties?.[k] as { 'x-listed-as'?: unknown } | undefined)?.['x-listed-as'] === field,
  );
  if (renamed !== undefined) return `; did you mean "${renamed}"? (answers and listings call it "${field}")`;
  return known.length > 0 ? `; allowed fields are ${known.map((k) => `"${k}"`).join(', ')}` : '';
}

/** A word's stem for comparing names: squashed, a plural ending dropped (`properties` and `property` meet). */
const stem = (name: string): string =>
  squash(name)
    .replace(/ies$/, 'y')
    .replace(/(?<!s)s$/, '');

/**
 * The known name an unknown field most likely meant: the same name spelled another way (`userGroupID`), its
 * singular or plural (`mappings`, `property`), a shortening (`props`), its tail (`group_id`, a bare `id`), or a typo.
 */
function nearestField(field: string, known: readonly string[]): string | undefined {
  const word = stem(field);
  if (word === '') return undefined;
  return (
    known.find((k) => squash(k) === squash(field)) ??
    known.find((k) => stem(k) === word) ??
    (word.length >= 4 ? known.find((k) => stem(k).startsWith(word)) : undefined) ??
    (word.length >= 5 ? known.find((k) => stem(k).endsWith(word)) : undefined) ??
    (word === 'id' ? onlyIdOf(known) : undefined) ??
    known.find((k) => editDistance(stem(k), word) <= (word.length < 4 ? 1 : 2))
  );
}

/** The one known field that is an id (`user_group_id` for a bare `id`), if there is exactly one. */
function onlyIdOf(known: readonly string[]): string | undefined {
  const ids = known.filter((k) => stem(k).endsWith('id'));
  return ids.length === 1 ? ids[0] : undefined;
}
