import { gzipSync } from 'node:zlib';
import { forbiddenKeys, maxDepth } from '../../src/validate/jsonValue.js';
import { type ApiRequest, apiRequest, customerKey, methodOf, type OperationName } from './http.js';
import { requestSchema, type SchemaNode } from './schemas.js';

/** Where a mutation takes its choices from: a seeded `Random`, or one fast-check drives. */
export interface Chooser {
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

/** A valid request before it is broken: the operation, its body, and the API key it uses. */
export interface BaseRequest {
  readonly operation: OperationName;
  readonly body: Readonly<Record<string, unknown>>;
  readonly key?: string;
}

/** One way to break a valid request, with the answer the document promises for it. */
export interface Mutation {
  readonly name: string;
  readonly status: number;
  readonly code: string;
  apply(base: BaseRequest, choose: Chooser): ApiRequest;
}

const fieldsOf = (operation: OperationName): Readonly<Record<string, SchemaNode>> =>
  requestSchema(operation).properties ?? {};
const stringFields = (base: BaseRequest): string[] =>
  Object.keys(base.body).filter((f) => fieldsOf(base.operation)[f]?.type === 'string');

/** The base request with its body replaced by `text` (or bytes), headers kept. */
const withBody = (base: BaseRequest, body: string | Buffer): ApiRequest => ({
  ...apiRequest(base.operation, {}, base.key),
  body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
});
const withHeaders = (base: BaseRequest, headers: ApiRequest['headers']): ApiRequest => ({
  ...apiRequest(base.operation, base.body, base.key),
  headers,
});
const text = (base: BaseRequest): string => JSON.stringify(base.body);
/** Inserts `"name":value` text as the first member of the body object. */
const withMember = (base: BaseRequest, member: string): ApiRequest => {
  const json = text(base);
  return withBody(base, json === '{}' ? `{${member}}` : `{${member},${json.slice(1)}`);
};
const replaceField = (base: BaseRequest, field: string, value: unknown): ApiRequest =>
  apiRequest(base.operation, { ...base.body, [field]: value }, base.key);
const key = (base: BaseRequest): string => base.key ?? customerKey;

const body400 = (name: string, code: string, apply: Mutation['apply']): Mutation => ({
  name,
  status: 400,
  code,
  apply,
});

/**
 * Every mutation turns a valid request into one the document says is refused, whatever the base request is. The
 * expected status and code come from the document's rules (the ErrorCode list and the body rules in its prose).
 */
export const mutations: readonly Mutation[] = [
  body400('drop a required field', 'VALIDATION_FAILED', (base, choose) => {
    const field = choose.pick(requestSchema(base.operation).required ?? []);
    const { [field]: _dropped, ...rest } = base.body;
    return apiRequest(base.operation, rest, base.key);
  }),
  body400('add an unknown field', 'VALIDATION_FAILED', (base, choose) =>
    replaceField(base, choose.pick(['userGroupId', 'token', 'Name', 'nämé', 'id', 'user_group_ID']), 'x'),
  ),
  body400('give a field the wrong JSON type', 'VALIDATION_FAILED', (base, choose) => {
    const field = choose.pick(Object.keys(base.body));
    const type = fieldsOf(base.operation)[field]?.type;
    const wrong = type === 'string' ? [1, true, null, [], {}] : ['text', 1, true, null, []];
    return replaceField(base, field, choose.pick(wrong));
  }),
  body400('empty a string field', 'VALIDATION_FAILED', (base, choose) =>
    replaceField(base, choose.pick(stringFields(base)), ''),
  ),
  body400('make a string field one character too long', 'VALIDATION_FAILED', (base, choose) => {
    const field = choose.pick(stringFields(base));
    const limit = fieldsOf(base.operation)[field]?.maxLength ?? 64;
    return replaceField(base, field, 'é'.repeat(limit + 1 + choose.int(0, 40)));
  }),
  body400('put a control character in a string field', 'VALIDATION_FAILED', (base, choose) => {
    const field = choose.pick(stringFields(base));
    const chars = [...String(base.body[field])];
    // Between code points: inside a surrogate pair the insert would make an encoding error instead.
    chars.splice(
      choose.int(0, chars.length),
      0,
      String.fromCharCode(choose.pick([0, 1, 9, 10, 13, 27, 31, 127])),
    );
    return replaceField(base, field, chars.join(''));
  }),
  body400('add a prototype-poisoning key', 'BODY_FORBIDDEN_KEY', (base, choose) => {
    const forbidden = choose.pick([...forbiddenKeys]);
    return withMember(base, `"${forbidden}":${choose.pick(['{}', '{"isAdmin":true}', '1', 'null'])}`);
  }),
  body400('repeat a key', 'BODY_DUPLICATE_KEY', (base, choose) => {
    const field = choose.pick(Object.keys(base.body));
    return withMember(base, `${JSON.stringify(field)}:${JSON.stringify(choose.pick(['a', 'b', 1]))}`);
  }),
  body400('cut the JSON text short', 'BODY_INVALID_JSON', (base, choose) => {
    const json = text(base);
    return withBody(base, json.slice(0, choose.int(1, json.length - 1)));
  }),
  body400('append garbage after the JSON', 'BODY_INVALID_JSON', (base, choose) =>
    withBody(base, text(base) + choose.pick(['x', '}', ',', '{}', ' 1', '\u0000', '"'])),
  ),
  body400('insert bytes that are not UTF-8', 'BODY_INVALID_ENCODING', (base, choose) => {
    const bytes = Buffer.from(text(base), 'utf8');
    const at = choose.int(0, bytes.length);
    const bad = Buffer.from(choose.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80]]));
    return withBody(base, Buffer.concat([bytes.subarray(0, at), bad, bytes.subarray(at)]));
  }),
  body400('start with a byte order mark', 'BODY_INVALID_ENCODING', (base) =>
    withBody(base, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text(base), 'utf8')])),
  ),
  body400('put a lone surrogate in a string', 'BODY_INVALID_ENCODING', (base, choose) => {
    const field = choose.pick(stringFields(base));
    const escaped = JSON.stringify(base.body[field]).slice(1, -1);
    const json = JSON.stringify({ ...base.body, [field]: '\u0000MARK\u0000' });
    const lone = choose.pick(['\\ud800', '\\udfff', '\\udbff\\u0041']);
    return withBody(
      base,
      json.replace('\\u0000MARK\\u0000', () => `${escaped}${lone}`),
    );
  }),
  body400('send a number a double cannot hold', 'BODY_NUMBER_OUT_OF_RANGE', (base, choose) =>
    withMember(base, `"n":${choose.pick(['1e400', '-1e400', '1.8e308', '-2e308', '[1e999]'])}`),
  ),
  body400(`nest deeper than ${maxDepth} levels`, 'BODY_TOO_DEEP', (base, choose) => {
    const depth = choose.pick([maxDepth, maxDepth + 1, choose.int(maxDepth, 5000)]);
    return withMember(base, `"deep":${'['.repeat(depth)}${']'.repeat(depth)}`);
  }),
  body400('send a root that is not an object', 'BODY_NOT_OBJECT', (base, choose) =>
    withBody(base, choose.pick([`[${text(base)}]`, '"text"', '42', 'null', 'true', '[]'])),
  ),
  body400('send an empty body', 'BODY_MISSING', (base, choose) =>
    withBody(base, choose.pick(['', ' ', '\r\n\t'])),
  ),
  {
    name: 'leave out Authorization',
    status: 401,
    code: 'AUTH_MISSING',
    apply: (base) => withHeaders(base, [['content-type', 'application/json']]),
  },
  {
    name: 'use the Bearer scheme',
    status: 401,
    code: 'AUTH_BEARER',
    apply: (base, choose) =>
      withHeaders(base, [
        ['authorization', `${choose.pick(['Bearer', 'bearer', 'BEARER'])} ${key(base)}`],
        ['content-type', 'application/json'],
      ]),
  },
  {
    name: 'send an unknown API key',
    status: 401,
    code: 'AUTH_UNKNOWN_KEY',
    apply: (base, choose) =>
      withHeaders(base, [
        ['authorization', `Token ${choose.pick([`${key(base)}x`, 'wrong', key(base).toUpperCase()])}`],
        ['content-type', 'application/json'],
      ]),
  },
  {
    name: 'send Authorization twice',
    status: 400,
    code: 'AUTH_DUPLICATE',
    apply: (base) =>
      withHeaders(base, [
        ['authorization', `Token ${key(base)}`],
        ['authorization', `Token ${key(base)}`],
        ['content-type', 'application/json'],
      ]),
  },
  {
    name: 'send a content type other than JSON',
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    apply: (base, choose) =>
      withHeaders(base, [
        ['authorization', `Token ${key(base)}`],
        ...choose.pick<ApiRequest['headers']>([
          [],
          [['content-type', 'text/plain']],
          [['content-type', 'application/json; charset=latin1']],
          [['content-type', 'application/x-www-form-urlencoded']],
          [['content-type', 'application/jsonx']],
        ]),
      ]),
  },
  {
    name: 'compress the body',
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    apply: (base, choose) => ({
      ...withBody(base, gzipSync(text(base))),
      headers: [
        ['authorization', `Token ${key(base)}`],
        ['content-type', 'application/json'],
        ['content-encoding', choose.pick(['gzip', 'deflate', 'br'])],
      ],
    }),
  },
  {
    name: 'use a method the path does not answer',
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    apply: (base, choose) => ({
      ...apiRequest(base.operation, base.body, base.key),
      method: choose.pick(['DELETE', 'PATCH']),
    }),
  },
  {
    name: 'use a path the service does not have',
    status: 404,
    code: 'ROUTE_NOT_FOUND',
    apply: (base, choose) => ({
      ...apiRequest(base.operation, base.body, base.key),
      path: choose.pick(['/api/user/', '/api/users', '/API/user', '/api', '/user']),
    }),
  },
];

export const mutationNamed = (name: string): Mutation => {
  const found = mutations.find((m) => m.name === name);
  if (found === undefined) throw new Error(`no mutation "${name}"`);
  return found;
};

/** The method a base request uses, for reading its answer with `validateResponse`. */
export const baseMethod = (base: BaseRequest): string => methodOf[base.operation];
