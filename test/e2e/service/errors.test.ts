import { STATUS_CODES } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer, validateResponse } from '../../../src/index.js';
import { rawRequest, sendRaw } from '../../support/rawHttp.js';

let mock: MockServer;
let token: string;
beforeAll(async () => {
  mock = await createMockServer({ bodyLimit: 64 * 1024 });
  const seeded = await mock.seedGroup({ environment: 'Customer', user_group_id: 'seeded', name: 'Seeded' });
  token = seeded.token;
});
afterAll(async () => mock.close());

const auth = { Authorization: 'Token dev-customer-key', 'Content-Type': 'application/json' };
const valid = JSON.stringify({ name: 'A', user_group_id: 'a' });

interface Case {
  readonly name: string;
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Record<string, string | string[]>;
  readonly body?: string | Buffer;
  readonly status: number;
  readonly code: string;
  readonly header?: [string, string];
  readonly message?: RegExp;
}

const cases: Case[] = [
  {
    name: 'no Authorization',
    headers: { 'Content-Type': 'application/json' },
    body: valid,
    status: 401,
    code: 'AUTH_MISSING',
    header: ['www-authenticate', 'Token'],
    message: /^Authorization header is missing; send "Authorization: Token <API_KEY>"$/,
  },
  {
    name: 'an empty Authorization',
    headers: { ...auth, Authorization: '' },
    body: valid,
    status: 401,
    code: 'AUTH_MISSING',
    header: ['www-authenticate', 'Token'],
    message: /^Authorization header is empty \(sent with no value.*; send "Authorization: Token <API_KEY>"$/,
  },
  {
    name: 'the Token scheme with no key (an unset variable)',
    headers: { ...auth, Authorization: 'Token ' },
    body: valid,
    status: 401,
    code: 'AUTH_SCHEME',
    header: ['www-authenticate', 'Token'],
    message:
      /^Authorization has the Token scheme but no API key after it \(as when the variable meant to hold the key is unset or empty\)/,
  },
  {
    name: 'Bearer',
    headers: { ...auth, Authorization: 'Bearer dev-customer-key' },
    body: valid,
    status: 401,
    code: 'AUTH_BEARER',
    message: /Token scheme/,
  },
  {
    name: 'an unknown key',
    headers: { ...auth, Authorization: 'Token nope' },
    body: valid,
    status: 401,
    code: 'AUTH_UNKNOWN_KEY',
    header: ['www-authenticate', 'Token'],
  },
  {
    name: 'the scheme joined to the key with "="',
    headers: { ...auth, Authorization: 'Token=dev-customer-key' },
    body: valid,
    status: 401,
    code: 'AUTH_SCHEME',
    message: /"Token=" joins the scheme to the key; one space separates them/,
  },
  {
    name: 'a known key in quotes',
    headers: { ...auth, Authorization: 'Token "dev-customer-key"' },
    body: valid,
    status: 401,
    code: 'AUTH_UNKNOWN_KEY',
    message: /in quotes; send it bare/,
  },
  {
    name: 'the key of an unset variable (Token undefined)',
    headers: { ...auth, Authorization: 'Token undefined' },
    body: valid,
    status: 401,
    code: 'AUTH_UNKNOWN_KEY',
    message: /is the text "undefined": the variable meant to hold the key was not set/,
  },
  {
    name: 'the key named as in other Token-scheme APIs (token="KEY")',
    headers: { ...auth, Authorization: 'Token token="dev-customer-key"' },
    body: valid,
    status: 401,
    code: 'AUTH_UNKNOWN_KEY',
    message: /Authorization has "token=" before the key .*this API takes the key alone/,
  },
  {
    name: 'two Authorization headers',
    headers: { ...auth, Authorization: ['Token dev-customer-key', 'Token dev-testing-key'] },
    body: valid,
    status: 400,
    code: 'AUTH_DUPLICATE',
  },
  {
    name: 'a schema violation',
    body: JSON.stringify({ name: 'A' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    message: /user_group_id/,
  },
  { name: 'malformed JSON', body: '{"name": "A",', status: 400, code: 'BODY_INVALID_JSON' },
  { name: 'a non-object root', body: '["a"]', status: 400, code: 'BODY_NOT_OBJECT' },
  {
    name: 'a __proto__ key',
    body: '{"name":"A","user_group_id":"a","__proto__":{"x":1}}',
    status: 400,
    code: 'BODY_FORBIDDEN_KEY',
  },
  {
    name: 'a constructor key',
    body: '{"name":"A","user_group_id":"a","properties":{"constructor":{"prototype":{}}}}',
    status: 400,
    code: 'BODY_FORBIDDEN_KEY',
  },
  {
    name: 'nesting deeper than 32',
    body: `{"name":"A","user_group_id":"a","properties":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`,
    status: 400,
    code: 'BODY_TOO_DEEP',
  },
  {
    name: 'invalid UTF-8',
    body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    status: 400,
    code: 'BODY_INVALID_ENCODING',
  },
  {
    name: 'a lone surrogate',
    body: '{"name":"\\ud800","user_group_id":"a"}',
    status: 400,
    code: 'BODY_INVALID_ENCODING',
  },
  {
    name: 'a non-finite number',
    body: '{"name":"A","user_group_id":"a","properties":{"n":1e400}}',
    status: 400,
    code: 'BODY_NUMBER_OUT_OF_RANGE',
  },
  {
    // node:http sends no User-Agent: the general form first, with a body to send, then the advice for Node.
    name: 'a GET without a body',
    status: 400,
    code: 'BODY_MISSING',
    message:
      /^GET \/api\/user needs a JSON body and arrived without one; send it with "Content-Type: application\/json" and a Content-Length header, e\.g\. \{"user_group_id":"customer-a","name":"Customer A"\}\. From Node: fetch cannot send a GET body; use undici\.request/,
  },
  {
    name: 'a GET without a body from curl',
    headers: { ...auth, 'User-Agent': 'curl/8.5.0' },
    status: 400,
    code: 'BODY_MISSING',
    message:
      /^GET \/api\/user needs a JSON body and arrived without one; give curl the body with -d and its type: curl -X GET …\/api\/user -H 'Authorization: Token <API_KEY>' -H 'Content-Type: application\/json' -d '\{"user_group_id":"customer-a","name":"Customer A"\}'$/,
  },
  {
    // fetch sends a PUT's body: the hint about GET bodies would send the client after the wrong cause.
    name: 'a PUT without a body',
    method: 'PUT',
    status: 400,
    code: 'BODY_MISSING',
    message:
      /^PUT \/api\/user needs a JSON body.*Content-Length header, e\.g\. \{"user_group_id":"customer-a","name":"Customer A"\}$/,
  },
  {
    name: 'a get-or-create body sent with POST (curl -d without -X GET)',
    method: 'POST',
    body: valid,
    status: 400,
    code: 'VALIDATION_FAILED',
    message:
      /fits GET \/api\/user .*did you mean GET \(get-or-create\).*-X GET; fetch refuses a body on GET, undici.request and node:http send one/,
  },
  {
    name: 'a required field spelt another way (the fix leads the message)',
    body: JSON.stringify({ name: 'Shop', userGroupId: 'shop-1' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    message:
      /^the request body does not match getOrCreateUserGroup: body has unknown field "userGroupId"; did you mean "user_group_id"\? \(and 1 more problem in details\)$/,
  },
  {
    name: 'a rotation body sent with GET',
    body: JSON.stringify({ current_token: 'a'.repeat(64) }),
    status: 400,
    code: 'VALIDATION_FAILED',
    message: /did you mean POST \(rotate\)\?/,
  },
  {
    name: 'api_environment_tag sent in a request',
    body: JSON.stringify({ name: 'A', user_group_id: 'a', api_environment_tag: 'Testing' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    message: /"api_environment_tag", a field of the service's answers.*environment comes from the API key/,
  },
  {
    name: 'token sent in a request',
    body: JSON.stringify({ name: 'A', user_group_id: 'a', token: 'a'.repeat(64) }),
    status: 400,
    code: 'VALIDATION_FAILED',
    message: /"token", a field of the service's answers.*current_token/,
  },
  {
    name: 'team_id sent in a request',
    method: 'PUT',
    body: JSON.stringify({ user_group_id: 'seeded', team_id: 1, name: 'B' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    message: /"team_id", a field of the service's answers.*internal id/,
  },
  { name: 'an unknown path', path: '/api/users', body: valid, status: 404, code: 'ROUTE_NOT_FOUND' },
  {
    name: 'a trailing slash',
    path: '/api/user/',
    body: valid,
    status: 404,
    code: 'ROUTE_NOT_FOUND',
    message: /trailing slash/,
  },
  {
    name: 'DELETE',
    method: 'DELETE',
    body: valid,
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    header: ['allow', 'GET, PUT, POST'],
  },
  {
    name: 'a body over the limit',
    body: JSON.stringify({ name: 'A', user_group_id: 'a', properties: { x: 'y'.repeat(70 * 1024) } }),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'text/plain',
    headers: { ...auth, 'Content-Type': 'text/plain' },
    body: valid,
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a Latin-1 charset',
    headers: { ...auth, 'Content-Type': 'application/json; charset=iso-8859-1' },
    body: valid,
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'two Content-Type headers, JSON first',
    headers: { ...auth, 'Content-Type': ['application/json', 'text/plain'] },
    body: valid,
    status: 400,
    code: 'HTTP_MALFORMED',
    message: /carries 2 Content-Type headers/,
  },
  {
    name: 'two Content-Type headers, JSON last',
    headers: { ...auth, 'Content-Type': ['text/plain', 'application/json'] },
    body: valid,
    status: 400,
    code: 'HTTP_MALFORMED',
    message: /carries 2 Content-Type headers/,
  },
  {
    name: 'a body field in the query string',
    path: '/api/user?user_group_id=qq',
    body: JSON.stringify({ name: 'n' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    message: /takes no query parameters: send "user_group_id" in the JSON body/,
  },
  {
    name: 'a gzip body',
    headers: { ...auth, 'Content-Encoding': 'gzip' },
    body: valid,
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
];

describe('bad requests get the error envelope with the right status', () => {
  it.each(cases)('$name: $status $code', async (c) => {
    const headers = c.headers ?? auth;
    const answer = await sendRaw(
      mock.url,
      rawRequest(c.method ?? 'GET', c.path ?? '/api/user', headers, c.body),
    );
    expect(answer.status).toBe(c.status);
    expect(answer.reason).toBe(STATUS_CODES[c.status]);
    expect(answer.body).toMatchObject({ success: 0, error: { code: c.code } });
    expect(answer.text).not.toMatch(/\bat \S+\.(ts|js):\d+/);
    if (c.header) expect(answer.headers[c.header[0]]).toBe(c.header[1]);
    if (c.message) expect(answer.body.error.message).toMatch(c.message);
    if (c.path === undefined && c.method === undefined) {
      expect(
        validateResponse({ method: 'GET', path: '/api/user', status: c.status, body: answer.body })
          .diagnostics,
      ).toEqual([]);
    }
    expect((await mock.groups()).map((g) => g.provided_id)).toEqual(['seeded']);
  });

  it('says so when a user group token is sent as the API key', async () => {
    const answer = await sendRaw(
      mock.url,
      rawRequest('GET', '/api/user', { ...auth, Authorization: `Token ${token}` }, valid),
    );
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('AUTH_GROUP_TOKEN_AS_KEY');
    expect(answer.body.error.message).toMatch(/user group token, not an API key/);
  });

  it('says so when a group token a rotation replaced is sent as the API key', async () => {
    const made = await mock.seedGroup({ environment: 'Testing', user_group_id: 'rotated', name: 'R' });
    const rotation = await sendRaw(
      mock.url,
      rawRequest(
        'POST',
        '/api/user',
        { ...auth, Authorization: 'Token dev-testing-key' },
        JSON.stringify({ current_token: made.token }),
      ),
    );
    expect(rotation.status).toBe(200);
    const answer = await sendRaw(
      mock.url,
      rawRequest('GET', '/api/user', { ...auth, Authorization: `Token ${made.token}` }, valid),
    );
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Token');
    expect(answer.body.error.code).toBe('AUTH_GROUP_TOKEN_AS_KEY');
    expect(answer.body.error.message).toMatch(
      /user group token \(one a rotation has since replaced\), not an API key/,
    );
  });

  it('decides 401 before reading the body', async () => {
    const head = rawRequest('GET', '/api/user', {
      Authorization: 'Token nope',
      'Content-Type': 'application/json',
      'Content-Length': '100000',
    });
    const answer = await sendRaw(mock.url, head, 2_000);
    expect(answer.status).toBe(401);
  });

  it.each([
    ['DELETE', '/api/user', 405],
    ['GET', '/api/users', 404],
  ])('answers %s %s %i in the envelope that validateResponse accepts', async (method, path, status) => {
    const answer = await sendRaw(mock.url, rawRequest(method, path, auth, valid));
    expect(answer.status).toBe(status);
    expect(validateResponse({ method, path, status: answer.status, body: answer.text })).toEqual({
      ok: true,
      diagnostics: [],
    });
  });

  it('accepts application/json with charset utf-8', async () => {
    const headers = { ...auth, 'Content-Type': 'application/json; charset=utf-8' };
    const answer = await sendRaw(
      mock.url,
      rawRequest('GET', '/api/user', headers, JSON.stringify({ name: 'B', user_group_id: 'charset' })),
    );
    expect(answer.status).toBe(200);
    await mock.reset();
    const reseeded = await mock.seedGroup({
      environment: 'Customer',
      user_group_id: 'seeded',
      name: 'Seeded',
      token,
    });
    expect(reseeded.token).toBe(token);
  });
});

describe('configuration that cannot work', () => {
  it('refuses to start with an empty API key', async () => {
    await expect(createMockServer({ apiKeys: [{ key: '', environment: 'Customer' }] })).rejects.toThrow(
      /apiKeys\[0\]\.key must be a non-empty string without spaces/,
    );
  });
});
