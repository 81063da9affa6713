/** Requests sent to both Prism and our mock, and how a verdict is read from a status. */

export type Verdict =
  | 'accepted'
  | 'invalid'
  | 'unauthorized'
  | 'not-found'
  | 'method-not-allowed'
  | 'too-large'
  | 'no-answer'
  | `status ${number}`;

/** Prism answers a schema violation with the document's 400 (or 422 without one); we with 400 or 415. */
export function verdictOf(status: number | undefined): Verdict {
  if (status === undefined) return 'no-answer';
  if (status >= 200 && status < 300) return 'accepted';
  if (status === 400 || status === 415 || status === 422) return 'invalid';
  const named: Record<number, Verdict> = {
    401: 'unauthorized',
    404: 'not-found',
    405: 'method-not-allowed',
    413: 'too-large',
  };
  return named[status] ?? `status ${status}`;
}

export interface Probe {
  readonly name: string;
  readonly method: string;
  /** Default `/api/user`. */
  readonly path?: string;
  /** Replaces the default `Authorization: Token <customer key>` and JSON Content-Type. */
  readonly headers?: Record<string, string | string[]>;
  /** Sent as JSON. */
  readonly json?: unknown;
  /** Sent as is. */
  readonly raw?: string | Buffer;
}

/** The group our stateful mock holds before each probe, so that valid PUT and POST requests find it. */
export const seeded = {
  environment: 'Customer',
  user_group_id: 'customer-a',
  name: 'Customer A',
  token: '3f9c1e0b7a4d2c6e8f1a0b3c5d7e9f2a4c6e8a0b2d4f6a8c0e2a4c6e8f0a1b3c',
} as const;

export const customerKey = 'dev-customer-key';
export const json = 'application/json';
export const auth = (value: string) => ({ authorization: value, 'content-type': json });
const body = (method: string, json: unknown, name: string): Probe => ({ name, method, json });

const get = { name: 'Customer A', user_group_id: 'customer-a' };

/** Requests both must accept. */
export const accepted: readonly Probe[] = [
  body('GET', get, 'the two required fields'),
  body('GET', { ...get, mapping: { '40': '213' }, properties: { region: 'EU' } }, 'mapping and properties'),
  body('GET', { ...get, user_group_id: 'new-group' }, 'an id not seen before'),
  body('GET', { ...get, mapping: {}, properties: {} }, 'an empty mapping and properties'),
  body('GET', { ...get, properties: { list: [1, 'two', null], nested: { ok: true } } }, 'nested properties'),
  body('GET', { name: 'Zürich 東京 🚀', user_group_id: 'zürich' }, 'non-ASCII text'),
  body('GET', { name: 'n'.repeat(255), user_group_id: 'i'.repeat(255) }, 'the longest name and id'),
  {
    name: 'charset=utf-8',
    method: 'GET',
    headers: { ...auth(`Token ${customerKey}`), 'content-type': `${json}; charset=utf-8` },
    json: get,
  },
  { name: 'the scheme word in lower case', method: 'GET', headers: auth(`token ${customerKey}`), json: get },
  { name: 'the Testing key', method: 'GET', headers: auth('Token dev-testing-key'), json: get },
  body('PUT', { user_group_id: 'customer-a', name: 'Customer A (EU)' }, 'a rename'),
  body('PUT', { user_group_id: 'customer-a', properties: { region: 'US' } }, 'new properties'),
  body('PUT', { user_group_id: 'customer-a', mapping: { '1': '2' } }, 'a new mapping'),
  body('PUT', { ...get, mapping: { '1': '2' }, properties: { a: 1 } }, 'every field'),
  body('POST', { current_token: seeded.token }, 'the current token'),
  {
    name: 'an integer beyond 2^53 - 1 (legal; ours warns in X-Mock-Notice)',
    method: 'GET',
    raw: '{"name":"A","user_group_id":"a","properties":{"n":9007199254740993}}',
  },
];

/** Requests both must reject as invalid (Prism 400/422, ours 400/415). */
export const invalid: readonly Probe[] = [
  body('GET', { name: 'Customer A' }, 'no user_group_id'),
  body('GET', { user_group_id: 'customer-a' }, 'no name'),
  body('GET', {}, 'an empty object'),
  body('GET', { name: 'Customer A', userGroupId: 'customer-a' }, 'the typo userGroupId'),
  body('GET', { ...get, colour: 'blue' }, 'an unknown field'),
  body('GET', { ...get, name: 42 }, 'a number as name'),
  body('GET', { ...get, user_group_id: null }, 'null as user_group_id'),
  body('GET', { ...get, name: '' }, 'an empty name'),
  body('GET', { ...get, user_group_id: 'i'.repeat(256) }, 'an id of 256 characters'),
  body('GET', { ...get, name: 'tab\there' }, 'a control character in the name'),
  body('GET', { ...get, mapping: { '40': 213 } }, 'a number as mapping value'),
  body('GET', { ...get, mapping: ['213'] }, 'an array as mapping'),
  body('GET', { ...get, properties: null }, 'null as properties'),
  body('GET', { ...get, properties: 'region=EU' }, 'a string as properties'),
  body('GET', [get], 'an array as body'),
  body('GET', 'customer-a', 'a string as body'),
  body('GET', null, 'null as body'),
  body('PUT', { user_group_id: 'customer-a' }, 'an update with nothing to change'),
  body('PUT', { name: 'Customer A' }, 'an update without user_group_id'),
  body('PUT', { user_group_id: 'customer-a', token: seeded.token }, 'an update that sets the token'),
  body('POST', {}, 'a rotation without current_token'),
  body('POST', { current_token: 'abc123' }, 'a short token'),
  body('POST', { current_token: seeded.token.toUpperCase() }, 'an upper-case token'),
  body('POST', { current_token: 12345 }, 'a number as token'),
  body('POST', { current_token: customerKey }, 'the API key as current_token'),
  body('POST', { current_token: seeded.token, user_group_id: 'customer-a' }, 'an extra field in a rotation'),
  { name: 'a __proto__ key', method: 'GET', raw: '{"name":"A","user_group_id":"a","__proto__":{}}' },
  { name: 'no body on GET', method: 'GET' },
  { name: 'no body on PUT', method: 'PUT' },
  { name: 'no body on POST', method: 'POST' },
  { name: 'a truncated JSON body', method: 'GET', raw: '{"name":"Customer A",' },
  { name: 'a trailing comma', method: 'POST', raw: `{"current_token":"${seeded.token}",}` },
  { name: 'text that is not JSON', method: 'PUT', raw: 'user_group_id=customer-a' },
  {
    name: 'a byte order mark',
    method: 'GET',
    raw: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(get))]),
  },
  { name: 'no Content-Type', method: 'GET', headers: { authorization: `Token ${customerKey}` }, json: get },
  {
    name: 'Content-Type text/plain',
    method: 'GET',
    headers: { ...auth(`Token ${customerKey}`), 'content-type': 'text/plain' },
    json: get,
  },
  {
    name: 'a form-encoded body',
    method: 'PUT',
    headers: { ...auth(`Token ${customerKey}`), 'content-type': 'application/x-www-form-urlencoded' },
    raw: 'user_group_id=customer-a&name=B',
  },
];

/** Requests both must refuse for another reason than the body. */
export const refused: readonly (Probe & { verdict: Verdict })[] = [
  {
    name: 'no Authorization header',
    method: 'GET',
    headers: { 'content-type': json },
    json: get,
    verdict: 'unauthorized',
  },
  {
    name: 'no Authorization and an invalid body',
    method: 'GET',
    headers: { 'content-type': json },
    json: {},
    verdict: 'unauthorized',
  },
  { name: 'DELETE', method: 'DELETE', json: get, verdict: 'method-not-allowed' },
  { name: 'PATCH', method: 'PATCH', json: get, verdict: 'method-not-allowed' },
  { name: 'OPTIONS', method: 'OPTIONS', verdict: 'method-not-allowed' },
  { name: 'HEAD', method: 'HEAD', verdict: 'method-not-allowed' },
  { name: 'an unknown path', method: 'GET', path: '/api/users', json: get, verdict: 'not-found' },
  { name: 'the service root', method: 'GET', path: '/', json: get, verdict: 'not-found' },
];
