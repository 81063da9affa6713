import type { OutgoingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { validateRequest, validateResponse } from '../../../src/index.js';
import { requestFixtures } from '../../support/fixtures.js';

const fixtures = requestFixtures();
const valid = fixtures.flatMap((f) => f.valid.map((c) => ({ ...c, operationId: f.operationId })));
const invalid = fixtures.flatMap((f) => f.invalid.map((c) => ({ ...c, operationId: f.operationId })));

describe('validateRequest', () => {
  it.each(valid)('accepts $operationId: $name', ({ request, operationId }) => {
    expect(validateRequest(request)).toEqual({ ok: true, operationId, diagnostics: [], warnings: [] });
  });

  it.each(invalid)(
    'rejects $operationId: $name with $expect.code at $expect.path',
    ({ request, expect: expected }) => {
      const result = validateRequest(request);
      expect(result.ok).toBe(false);
      expect(result.diagnostics).toContainEqual(expect.objectContaining(expected));
      for (const diagnostic of result.diagnostics) {
        expect(diagnostic.message.length).toBeGreaterThan(10);
        expect(diagnostic.path === '' || diagnostic.path.startsWith('/')).toBe(true);
      }
    },
  );

  it.each([
    [
      'a Headers (fetch, undici)',
      new Headers({ Authorization: 'Token k', 'Content-Type': 'application/json' }),
    ],
    [
      'a Map',
      new Map([
        ['authorization', 'Token k'],
        ['content-type', 'application/json'],
      ]),
    ],
    [
      '[name, value] pairs',
      [
        ['Authorization', 'Token k'],
        ['Content-Type', 'application/json'],
      ] as [string, string][],
    ],
    ["Node's flat rawHeaders", ['Authorization', 'Token k', 'Content-Type', 'application/json']],
  ])('reads the headers from %s', (_kind, headers) => {
    const request = { method: 'GET', path: '/api/user', headers, body: { name: 'A', user_group_id: 'a' } };
    expect(validateRequest(request)).toMatchObject({ ok: true, diagnostics: [] });
  });

  it("takes Node's OutgoingHttpHeaders (clientRequest.getHeaders()), a number value as its text", () => {
    const headers: OutgoingHttpHeaders = {
      authorization: 'Token k',
      'content-type': ['application/json'],
      'content-length': 34,
    };
    const request = { method: 'GET', path: '/api/user', headers, body: { name: 'A', user_group_id: 'a' } };
    expect(validateRequest(request)).toMatchObject({ ok: true, diagnostics: [] });
    // A number where the key belongs is read, not dropped as if no Authorization header had been sent.
    const numbered = validateRequest({ ...request, headers: { ...headers, authorization: 42 } });
    expect(numbered.diagnostics.map((d) => d.code)).not.toContain('AUTH_MISSING');
    expect(numbered.diagnostics.map((d) => d.code)).toEqual(['AUTH_SCHEME']);
  });

  it('keeps both values of a header repeated in pairs (two Authorization headers are a mistake to report)', () => {
    const headers: [string, string][] = [
      ['Authorization', 'Token k'],
      ['authorization', 'Token j'],
      ['Content-Type', 'application/json'],
    ];
    const result = validateRequest({
      method: 'GET',
      path: '/api/user',
      headers,
      body: { name: 'A', user_group_id: 'a' },
    });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['AUTH_DUPLICATE']);
  });

  it('names the field a typo meant', () => {
    const result = validateRequest({
      method: 'GET',
      path: '/api/user',
      headers: { Authorization: 'Token k', 'Content-Type': 'application/json' },
      body: { name: 'A', userGroupId: 'a' },
    });
    expect(result.diagnostics).toContainEqual({
      code: 'UNKNOWN_FIELD',
      path: '/body/userGroupId',
      message: 'body has unknown field "userGroupId"; did you mean "user_group_id"?',
    });
  });

  it('words type errors as "body/<field> must be a string"', () => {
    const result = validateRequest({
      method: 'GET',
      path: '/api/user',
      headers: { authorization: 'Token k', 'content-type': 'application/json' },
      body: { name: 'A', user_group_id: 7 },
    });
    expect(result.diagnostics).toEqual([
      {
        code: 'WRONG_TYPE',
        path: '/body/user_group_id',
        message: 'body/user_group_id must be a string, not a number',
      },
    ]);
  });

  it('lists the methods the path answers when the method is wrong', () => {
    const result = validateRequest({ method: 'DELETE', path: '/api/user', headers: {}, body: {} });
    expect(result.diagnostics[0]?.message).toContain(
      'GET (getOrCreateUserGroup), PUT (updateUserGroup), POST (rotateUserGroupToken)',
    );
  });

  it('reads a string body as JSON text', () => {
    const headers = { authorization: 'Token k', 'content-type': 'application/json' };
    expect(
      validateRequest({ method: 'GET', path: '/api/user', headers, body: '{"name":"A","user_group_id":"a"}' })
        .ok,
    ).toBe(true);
    expect(
      validateRequest({ method: 'GET', path: '/api/user', headers, body: '{"name":"A",' }).diagnostics[0]
        ?.code,
    ).toBe('BODY_INVALID_JSON');
  });
});

describe('validateRequest and validateResponse given something other than a request', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['a string', 'GET /api/user'],
    ['an object without a method', { path: '/api/user' }],
  ])('say what they take when given %s', (_name, input) => {
    expect(validateRequest(input as never).diagnostics).toEqual([
      expect.objectContaining({
        code: 'UNREADABLE_REQUEST',
        message: expect.stringContaining('{ method, path, headers, body }'),
      }),
    ]);
    expect(validateResponse(input as never).diagnostics).toEqual([
      expect.objectContaining({
        code: 'UNREADABLE_RESPONSE',
        message: expect.stringContaining('{ method, path, status, body }'),
      }),
    ]);
  });

  it('name a missing path (pointing from a url given instead to its path) and a missing status', () => {
    const headers = { authorization: 'Token k', 'content-type': 'application/json' };
    const body = { name: 'A', user_group_id: 'a' };
    const [fromUrl] = validateRequest({
      method: 'GET',
      url: 'http://127.0.0.1:4010/api/user',
      headers,
      body,
    } as never).diagnostics;
    expect(fromUrl).toMatchObject({ code: 'UNREADABLE_REQUEST' });
    expect(fromUrl?.message).toContain(
      `validateRequest reads the request's path, not its url: give { path: "/api/user" } (the path and query, without the scheme and host)`,
    );
    expect(validateRequest({ method: 'GET', headers, body } as never).diagnostics[0]?.message).toContain(
      "validateRequest needs the request's path",
    );
    expect(
      validateResponse({ method: 'GET', path: '/api/user', body: { success: 1 } } as never).diagnostics,
    ).toEqual([
      {
        code: 'UNREADABLE_RESPONSE',
        path: '',
        message:
          'validateResponse needs the status the service answered with the body: { method, path, status, body }, e.g. status: 200',
      },
    ]);
  });

  it('reports an empty name once, as empty, not also as holding control characters', () => {
    const result = validateRequest({
      method: 'GET',
      path: '/api/user',
      headers: { authorization: 'Token k', 'content-type': 'application/json' },
      body: { name: '', user_group_id: 'b' },
    });
    expect(result.diagnostics).toEqual([
      { code: 'TOO_SHORT', path: '/body/name', message: 'body/name must not be empty' },
    ]);
  });
});

const jsonHeaders = { authorization: 'Token k', 'content-type': 'application/json' };
const get = (body: unknown, path = '/api/user') =>
  validateRequest({ method: 'GET', path, headers: jsonHeaders, body });

describe('validateRequest says only what is true, the first thing to fix first', () => {
  it('leads with the misspelt field when it explains the missing one, the missing field after it', () => {
    expect(
      get({ name: 'Shop', userGroupId: 'shop-1' }).diagnostics.map(({ code, path }) => `${code} ${path}`),
    ).toEqual(['UNKNOWN_FIELD /body/userGroupId', 'MISSING_FIELD /body/user_group_id']);
  });

  it('keeps the missing field first when the unknown field is not a spelling of it', () => {
    expect(get({ name: 'Shop', colour: 'red' }).diagnostics.map((d) => d.code)).toEqual([
      'MISSING_FIELD',
      'UNKNOWN_FIELD',
    ]);
  });

  it('reports a missing user_group_id alone when an update has a name', () => {
    const result = validateRequest({
      method: 'PUT',
      path: '/api/user',
      headers: jsonHeaders,
      body: { name: 'n' },
    });
    expect(result.diagnostics).toEqual([
      {
        code: 'MISSING_FIELD',
        path: '/body/user_group_id',
        message: 'body must have required field "user_group_id"',
      },
    ]);
  });

  it('asks for a field besides user_group_id only when the update has none, after the missing field', () => {
    const alone = validateRequest({
      method: 'PUT',
      path: '/api/user',
      headers: jsonHeaders,
      body: { user_group_id: 'a' },
    });
    expect(alone.diagnostics.map((d) => [d.code, d.path])).toEqual([['MISSING_FIELD', '/body']]);
    const empty = validateRequest({ method: 'PUT', path: '/api/user', headers: jsonHeaders, body: {} });
    expect(empty.diagnostics.map((d) => d.path)).toEqual(['/body/user_group_id', '/body']);
  });

  it('counts characters in a length message as the check does, in code points', () => {
    const result = get({ name: 'n', user_group_id: '😀'.repeat(256) });
    expect(result.diagnostics[0]?.message).toBe(
      'body/user_group_id must have at most 255 characters, not 256',
    );
  });

  it.each([
    ['mappings', 'mapping'],
    ['property', 'properties'],
    ['props', 'properties'],
    ['group_id', 'user_group_id'],
    ['Name', 'name'],
    ['userGroupID', 'user_group_id'],
    ['id', 'user_group_id'],
    ['nmae', 'name'],
  ])('suggests a near name for the unknown field %s: %s', (field, meant) => {
    const result = get({ name: 'n', user_group_id: 'a1', [field]: 1 });
    expect(result.diagnostics[0]?.message).toBe(
      `body has unknown field "${field}"; did you mean "${meant}"?`,
    );
  });

  it('leads with a bare "id" sent for user_group_id, its fix first', () => {
    expect(get({ name: 'n', id: 'a1' }).diagnostics.map((d) => d.message)).toEqual([
      'body has unknown field "id"; did you mean "user_group_id"?',
      'body must have required field "user_group_id"',
    ]);
  });

  it('lists the allowed fields when no name is near', () => {
    const result = get({ name: 'n', user_group_id: 'a1', colour: 1 });
    expect(result.diagnostics[0]?.message).toContain('allowed fields are "name", "user_group_id"');
  });

  it('says to send the fields at the top level of a body that wraps them', () => {
    const result = get({ user_group: { name: 'n', user_group_id: 'x1' } });
    expect(result.diagnostics).toEqual([
      {
        code: 'UNKNOWN_FIELD',
        path: '/body/user_group',
        message:
          'body has "name", "user_group_id" inside "user_group"; send these fields at the top level of the body, not inside "user_group"',
      },
    ]);
  });

  it('gives no precision warning for a number the schema refuses', () => {
    const result = get('{"user_group_id":12345678901234567, "name":"n"}');
    expect(result.diagnostics.map((d) => d.code)).toEqual(['WRONG_TYPE']);
    expect(result.warnings).toEqual([]);
    const accepted = get('{"user_group_id":"a","name":"n","properties":{"n":12345678901234567}}');
    expect(accepted.ok).toBe(true);
    expect(accepted.warnings.map((w) => w.path)).toEqual(['/body/properties/n']);
    expect(accepted.warnings[0]?.message).not.toContain('accepts');
  });
});

describe('validateRequest refuses a query string, as the mock does', () => {
  it('says to send a body field in the JSON body', () => {
    const result = get({ name: 'n' }, '/api/user?user_group_id=qq');
    expect(result.diagnostics).toEqual([
      {
        code: 'UNKNOWN_QUERY_PARAMETER',
        path: '/query/user_group_id',
        message:
          'the query has "user_group_id", but GET /api/user takes no query parameters: send "user_group_id" in the JSON body',
      },
      {
        code: 'MISSING_FIELD',
        path: '/body/user_group_id',
        message: 'body must have required field "user_group_id"',
      },
    ]);
  });

  it('names each other parameter once, decoded, and lets a bare "?" pass', () => {
    const result = get({ name: 'n', user_group_id: 'a' }, '/api/user?trace=1&a%2Fb=2&trace=3');
    expect(result.diagnostics.map((d) => d.path)).toEqual(['/query/trace', '/query/a~1b']);
    expect(result.diagnostics[0]?.message).toContain('takes no query parameters; remove it');
    expect(get({ name: 'n', user_group_id: 'a' }, '/api/user?').ok).toBe(true);
  });
});

describe('validateRequest judges the Content-Type header as the mock does', () => {
  const withType = (contentType: string | string[]) =>
    validateRequest({
      method: 'GET',
      path: '/api/user',
      headers: { authorization: 'Token k', 'content-type': contentType },
      body: { name: 'n', user_group_id: 'a' },
    });

  it.each([['application/json;'], ['application/json ; '], ['application/json;; charset=utf-8']])(
    'accepts %j, whose empty parameter RFC 9110 allows',
    (contentType) => {
      expect(withType(contentType).diagnostics).toEqual([]);
    },
  );

  it.each([[['application/json', 'text/plain']], [['text/plain', 'application/json']]])(
    'refuses two Content-Type headers %j, in either order',
    (types) => {
      expect(withType(types).diagnostics).toEqual([
        {
          code: 'HTTP_MALFORMED',
          path: '/headers/content-type',
          message: `the request carries 2 Content-Type headers ("${types[0]}", "${types[1]}"); send exactly one, "Content-Type: application/json"`,
        },
      ]);
    },
  );

  it('says why a charset other than UTF-8 is refused', () => {
    expect(withType('application/json; charset=us-ascii').diagnostics[0]?.message).toContain(
      'JSON over HTTP is UTF-8',
    );
  });
});

describe('validateRequest explains a body cut short', () => {
  it('says Content-Length counts bytes when the cut body has non-ASCII characters', () => {
    const sent = '{"name":"Café Zürich","user_group_id":"cl-1"}';
    const cut = Buffer.from(sent).subarray(0, sent.length);
    const message = get(cut).diagnostics[0]?.message;
    expect(message).toContain('Content-Length must count bytes (Buffer.byteLength(body)), not characters');
  });

  it('says the body ends early, without the byte hint, for an ASCII body', () => {
    const message = get('{"name":"n","user_group_id":"a').diagnostics[0]?.message;
    expect(message).toContain('the body ends before the JSON does');
    expect(message).not.toContain('non-ASCII');
  });

  it('says nothing of length for JSON broken in its middle', () => {
    expect(get('{"name":"Zürich",,"user_group_id":"a"}').diagnostics[0]?.message).not.toContain(
      'ends before',
    );
  });
});
