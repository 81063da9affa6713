import { describe, expect, it } from 'vitest';
import { validateResponse } from '../../../src/index.js';
import { responseFixtures } from '../../support/fixtures.js';

const { valid, invalid } = responseFixtures();

describe('validateResponse', () => {
  it.each(valid)('accepts $name', ({ response }) => {
    expect(validateResponse(response).diagnostics).toEqual([]);
  });

  it.each(invalid)('rejects $name with $expect.code at $expect.path', ({ response, expect: expected }) => {
    const result = validateResponse(response);
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContainEqual(expect.objectContaining(expected));
  });

  it('accepts extra fields only in lenient mode, and still checks the named ones', () => {
    const body = {
      success: 1,
      new_user_group: false,
      request_id: 'abc',
      user_group: {
        team_id: 1,
        token: 'a'.repeat(64),
        name: 'A',
        provided_id: 'a',
        properties: null,
        created_at: 'x',
      },
    };
    const response = { method: 'GET', path: '/api/user', status: 200, body };
    expect(validateResponse(response).diagnostics.map((d) => d.code)).toEqual([
      'UNKNOWN_FIELD',
      'UNKNOWN_FIELD',
    ]);
    expect(validateResponse(response, { allowAdditionalProperties: true }).ok).toBe(true);
    const wrong = { ...response, body: { ...body, user_group: { ...body.user_group, token: 5 } } };
    expect(validateResponse(wrong, { allowAdditionalProperties: true }).diagnostics[0]?.path).toBe(
      '/body/user_group/token',
    );
  });

  it.each([
    {
      answer: 'a token in upper case',
      body: {
        success: 1,
        new_user_group: true,
        user_group: { team_id: 1, token: 'A'.repeat(64), name: 'A', provided_id: 'a', properties: null },
      },
      message: `the answer's user_group.token must be 64 lowercase hexadecimal characters; the service sent "${'A'.repeat(64)}"`,
    },
    {
      answer: 'an HTML error page',
      status: 502,
      body: '<h1>Bad Gateway</h1>',
      contentType: 'text/html',
      message:
        'the answer is not JSON (text/html, status 502, starting "<h1>Bad Gateway</h1>"); the service must answer application/json with the error envelope { "success": 0, "error": { "code", "message", "details" } }',
    },
    {
      answer: 'an empty 200',
      body: '',
      message:
        'the answer has no body (no Content-Type, status 200); the service must answer application/json with the body the document gives for this status',
    },
    {
      answer: 'a sound JSON answer sent as text/plain',
      body: {
        success: 1,
        new_user_group: true,
        user_group: { team_id: 1, token: 'a'.repeat(64), name: 'A', provided_id: 'a', properties: null },
      },
      contentType: 'text/plain; charset=utf-8',
      message:
        'the answer\'s body is JSON sent as Content-Type "text/plain"; the service must send "Content-Type: application/json", the type the document gives every answer',
    },
    {
      answer: 'JSON in Latin-1',
      body: '{"success":0,"error":{"code":"GROUP_NOT_FOUND","message":"no","details":[]}}',
      status: 404,
      contentType: 'application/json; charset=iso-8859-1',
      message:
        'the answer\'s Content-Type names charset "iso-8859-1", but JSON over HTTP is UTF-8 (RFC 8259, section 8.1); the service must send "Content-Type: application/json", the type the document gives every answer with the body in UTF-8',
    },
    {
      answer: 'an error code the document does not list, what it sent named before the 27 codes it may send',
      status: 400,
      body: { success: 0, error: { code: 'GROUP_NOT_FOUNDD', message: 'no', details: [] } },
      message: expect.stringMatching(
        /^the answer's error\.code must be one of the 27 values the document lists; the service sent "GROUP_NOT_FOUNDD"; did you mean "GROUP_NOT_FOUND"\? The values: "[A-Z_]+", .*"GROUP_NOT_FOUND", /,
      ),
    },
    {
      answer: 'a repeated key',
      body: '{"success":1,"success":1}',
      message: 'the answer repeats the key "success" in one object; the service must send each key once',
    },
  ])(
    'speaks to the service about $answer, without a client’s advice',
    ({ body, status, contentType, message }) => {
      const response = { method: 'GET', path: '/api/user', status: status ?? 200, body, contentType };
      expect(validateResponse(response).diagnostics[0]?.message).toEqual(message);
    },
  );
});

describe('validateResponse on the answer to a request without an operation', () => {
  const envelope = (code: string) => ({
    success: 0,
    error: { code, message: 'm', details: [{ code, path: '/method', message: 'm' }] },
  });

  it('accepts the documented 405 to a method the path does not take, and 404 to an unknown path', () => {
    expect(
      validateResponse({
        method: 'DELETE',
        path: '/api/user',
        status: 405,
        body: envelope('METHOD_NOT_ALLOWED'),
      }),
    ).toEqual({ ok: true, diagnostics: [] });
    expect(
      validateResponse({ method: 'GET', path: '/api/users', status: 404, body: envelope('ROUTE_NOT_FOUND') }),
    ).toEqual({ ok: true, diagnostics: [] });
  });

  it('checks that 405 and 404 carry the error envelope, speaking to the service', () => {
    const result = validateResponse({ method: 'DELETE', path: '/api/user', status: 405, body: { oops: 1 } });
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.message).toContain('the service must');
    expect(validateResponse({ method: 'GET', path: '/x', status: 404, body: 'nope' }).ok).toBe(false);
  });

  it('says plainly that another status to an unknown method or path has no documented answer', () => {
    expect(
      validateResponse({ method: 'DELETE', path: '/api/user', status: 200, body: { success: 1 } })
        .diagnostics,
    ).toEqual([
      {
        code: 'UNDOCUMENTED_STATUS',
        path: '/status',
        message:
          "the service answered status 200 to DELETE /api/user, a method the document does not give this path (it gives GET, PUT, POST); the document's answer to it is 405 with the error envelope",
      },
    ]);
    const unknown = validateResponse({ method: 'GET', path: '/api/users', status: 200, body: {} });
    expect(unknown.diagnostics.map((d) => [d.code, d.path])).toEqual([['NO_OPERATION', '/path']]);
    expect(unknown.diagnostics[0]?.message).toContain('the document has no operation at GET /api/users');
  });
});
