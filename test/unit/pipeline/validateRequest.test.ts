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
