import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { call, customerKey, jsonHeaders, nothingListens } from '../../support/http.js';
import { answerJson, type Received, useProxies, useTargets } from '../../support/proxy.js';
import { exchange } from '../../support/rawHttp.js';

const proxies = useProxies();
const targets = useTargets();

const token = (n: number): string => n.toString(16).padStart(64, '0');
const group = (id: string, t: string, extra: Record<string, unknown> = {}) => ({
  team_id: 1,
  token: t,
  name: 'A',
  provided_id: id,
  properties: null,
  ...extra,
});

/**
 * A deliberately wrong provider: one answer per request in order, each breaking the contract in one way (a
 * function of the request). After the list, it answers a correct first get-or-create.
 */
async function wrongProvider(answers: Array<(req: Received, res: ServerResponse) => void>) {
  let next = 0;
  return targets((req, res) => {
    const answer = answers[next++];
    if (answer !== undefined) answer(req, res);
    else answerJson(res, 200, { success: 1, new_user_group: true, user_group: group('x', token(99)) });
  });
}

const getA = { name: 'A', user_group_id: 'a' };

describe('the proxy in front of a service that accepts what the contract refuses', () => {
  it('blames the client for the request, and not the service for keeping what it accepted', async () => {
    const named = (name: string, created: boolean) => (_: Received, res: ServerResponse) =>
      answerJson(res, 200, {
        success: 1,
        new_user_group: created,
        user_group: group('a', token(1), { name }),
      });
    const updated = (_: Received, res: ServerResponse) =>
      answerJson(res, 200, {
        success: 1,
        user_group: group('a', token(1), { name: 'B', api_environment_tag: 'Customer' }),
      });
    const target = await wrongProvider([named('A', true), updated, named('B', false)]);
    const proxy = await proxies({ target: target.url });
    await call(proxy.url, 'GET', '/api/user', { body: getA });
    // `note` is a field the document does not have: the client's mistake, which this service keeps all the same.
    await call(proxy.url, 'PUT', '/api/user', { body: { user_group_id: 'a', name: 'B', note: 'x' } });
    await call(proxy.url, 'GET', '/api/user', { body: getA });
    const entries = await proxy.requests();
    expect(entries.map((e) => [e.fault, e.diagnostics.map((d) => d.code)])).toEqual([
      [null, []],
      ['client', ['UNKNOWN_FIELD']],
      [null, []],
    ]);
  });
});

describe('the proxy in front of a wrong provider', () => {
  it.each([
    {
      wrong: 'an upper-case token',
      answers: [
        (_: Received, res: ServerResponse) =>
          answerJson(res, 200, {
            success: 1,
            new_user_group: true,
            user_group: group('a', 'ABCDEF'.padEnd(64, '0')),
          }),
      ],
      requests: [['GET', getA]],
      diagnostic: {
        code: 'INVALID_FORMAT',
        path: '/body/user_group/token',
        message: `the answer's user_group.token must be 64 lowercase hexadecimal characters; the service sent "${'ABCDEF'.padEnd(64, '0')}"`,
      },
    },
    {
      wrong: 'a missing field',
      answers: [
        (_: Received, res: ServerResponse) =>
          answerJson(res, 200, { success: 1, user_group: group('a', token(1)) }),
      ],
      requests: [['GET', getA]],
      diagnostic: {
        code: 'MISSING_FIELD',
        path: '/body/new_user_group',
        message: 'the answer lacks the required field "new_user_group"; the service must send it',
      },
    },
    {
      wrong: 'success: 1 with a 400',
      answers: [
        (_: Received, res: ServerResponse) =>
          answerJson(res, 400, {
            success: 1,
            error: { code: 'VALIDATION_FAILED', message: 'no', details: [] },
          }),
      ],
      requests: [['GET', getA]],
      diagnostic: { path: '/body/success', message: "the answer's success must be 0; the service sent 1" },
    },
    {
      wrong: 'an HTML page with a 500',
      answers: [
        (_: Received, res: ServerResponse) => {
          res.writeHead(500, { 'content-type': 'text/html' });
          res.end('<html><body>Internal Server Error</body></html>');
        },
      ],
      requests: [['GET', getA]],
      diagnostic: {
        code: 'BODY_INVALID_JSON',
        path: '/body',
        message:
          'the answer is not JSON (text/html, status 500, starting "<html><body>Internal Server Error</body>"…); the service must answer application/json with the error envelope { "success": 0, "error": { "code", "message", "details" } }',
      },
    },
    {
      wrong: 'a new token on a second get-or-create',
      answers: [
        (_: Received, res: ServerResponse) =>
          answerJson(res, 200, { success: 1, new_user_group: true, user_group: group('a', token(1)) }),
        (_: Received, res: ServerResponse) =>
          answerJson(res, 200, { success: 1, new_user_group: false, user_group: group('a', token(2)) }),
      ],
      requests: [
        ['GET', getA],
        ['GET', getA],
      ],
      diagnostic: { code: 'PROVIDER_TOKEN_CHANGED', path: '/body/user_group/token' },
    },
    {
      wrong: 'new_user_group true for a known id',
      answers: [
        (_: Received, res: ServerResponse) =>
          answerJson(res, 200, { success: 1, new_user_group: true, user_group: group('a', token(1)) }),
        (_: Received, res: ServerResponse) =>
          answerJson(res, 200, { success: 1, new_user_group: true, user_group: group('a', token(1)) }),
      ],
      requests: [
        ['GET', getA],
        ['GET', getA],
      ],
      diagnostic: { code: 'PROVIDER_GROUP_CREATED_AGAIN', path: '/body/new_user_group' },
    },
    {
      wrong: 'a rotation that answers the current token unchanged',
      answers: [
        (req: Received, res: ServerResponse) =>
          answerJson(res, 200, {
            success: 1,
            user_group: group('a', JSON.parse(req.body.toString()).current_token, {
              api_environment_tag: 'Customer',
              properties: undefined,
            }),
          }),
      ],
      requests: [['POST', { current_token: token(1) }]],
      diagnostic: {
        code: 'PROVIDER_TOKEN_NOT_ROTATED',
        path: '/body/user_group/token',
        message: 'answered the current_token sent as the new token; the rule: a rotation answers a new token',
      },
    },
    {
      wrong: 'a rotated token that still works',
      answers: [
        (_: Received, res: ServerResponse) =>
          answerJson(res, 200, {
            success: 1,
            user_group: group('a', token(2), { api_environment_tag: 'Customer', properties: undefined }),
          }),
        (_: Received, res: ServerResponse) =>
          answerJson(res, 200, {
            success: 1,
            user_group: group('a', token(3), { api_environment_tag: 'Customer', properties: undefined }),
          }),
      ],
      requests: [
        ['POST', { current_token: token(1) }],
        ['POST', { current_token: token(1) }],
      ],
      diagnostic: { code: 'PROVIDER_ROTATED_TOKEN_ACCEPTED', path: '/status' },
    },
    {
      wrong: 'an environment that does not follow the key',
      answers: [
        (_: Received, res: ServerResponse) =>
          answerJson(res, 200, {
            success: 1,
            user_group: group('a', token(1), { api_environment_tag: 'Customer' }),
          }),
        (_: Received, res: ServerResponse) =>
          answerJson(res, 200, {
            success: 1,
            user_group: group('b', token(2), { api_environment_tag: 'Testing' }),
          }),
      ],
      requests: [
        ['PUT', getA],
        ['PUT', { name: 'B', user_group_id: 'b' }],
      ],
      diagnostic: { code: 'PROVIDER_ENVIRONMENT_CHANGED', path: '/body/user_group/api_environment_tag' },
    },
  ])(
    'flags $wrong as the provider’s fault and passes the answer on unchanged',
    async ({ answers, requests, diagnostic }) => {
      const target = await wrongProvider(answers);
      const proxy = await proxies({ target: target.url });
      let last: Awaited<ReturnType<typeof call>> | undefined;
      for (const [method, body] of requests)
        last = await call(proxy.url, method as string, '/api/user', { body });
      const entries = await proxy.requests();
      expect(entries).toHaveLength(requests.length);
      // Only the last exchange breaks the contract.
      expect(entries.slice(0, -1).flatMap((e) => e.diagnostics)).toEqual([]);
      const flagged = entries.at(-1);
      expect(flagged?.fault).toBe('provider');
      expect(flagged?.diagnostics).toContainEqual(expect.objectContaining(diagnostic));
      expect(await proxy.requests({ invalid: true })).toEqual([flagged]);
      const body = flagged?.responseBody;
      expect(last?.text).toBe(typeof body === 'string' ? body : JSON.stringify(body));
    },
  );

  it('allows extra answer fields when lenient and flags them when strict', async () => {
    const extra = () =>
      targets((_req, res) =>
        answerJson(res, 200, {
          success: 1,
          new_user_group: true,
          user_group: group('a', token(1), { region: 'EU' }),
          trace: 'x',
        }),
      );
    const lenient = await proxies({ target: (await extra()).url, mode: 'lenient' });
    const strict = await proxies({ target: (await extra()).url, mode: 'strict' });
    await call(lenient.url, 'GET', '/api/user', { body: getA });
    await call(strict.url, 'GET', '/api/user', { body: getA });
    expect(await lenient.requests({ invalid: true })).toEqual([]);
    const [flagged] = await strict.requests({ invalid: true });
    expect(flagged?.fault).toBe('provider');
    expect(flagged?.diagnostics.map((d) => d.code)).toContain('UNKNOWN_FIELD');
  });
});

describe('a buggy client through the proxy', () => {
  const correct = () =>
    targets((_req, res) =>
      answerJson(res, 400, { success: 0, error: { code: 'VALIDATION_FAILED', message: 'no', details: [] } }),
    );

  it.each([
    {
      mistake: 'Bearer instead of Token',
      headers: { authorization: `Bearer ${customerKey}`, 'content-type': 'application/json' },
      body: getA,
      code: 'AUTH_BEARER',
      status: 401,
    },
    {
      mistake: 'a missing user_group_id',
      headers: jsonHeaders(),
      body: { name: 'A' },
      code: 'MISSING_FIELD',
      status: 400,
    },
    {
      mistake: 'a body that is not JSON',
      headers: jsonHeaders(),
      raw: '{name: A}',
      code: 'BODY_INVALID_JSON',
      status: 400,
    },
    {
      mistake: 'a field sent in the query string',
      path: '/api/user?user_group_id=a',
      headers: jsonHeaders(),
      body: getA,
      code: 'UNKNOWN_QUERY_PARAMETER',
      status: 400,
    },
  ])(
    'flags $mistake as the client’s fault, forwarded, and with --block-invalid answers it without forwarding',
    async ({ path = '/api/user', headers, body, raw, code, status }) => {
      const target = await correct();
      const watching = await proxies({ target: target.url });
      const blocking = await proxies({ target: target.url, blockInvalid: true });
      const options = { headers, ...(raw === undefined ? { body } : { raw }) };
      const forwarded = await call(watching.url, 'GET', path, options);
      expect(forwarded.status).toBe(400); // the target's answer
      expect(target.received).toHaveLength(1);
      const [seen] = await watching.requests({ invalid: true });
      expect(seen?.fault).toBe('client');
      expect(seen?.diagnostics.map((d) => d.code)).toContain(code);

      const blocked = await call(blocking.url, 'GET', path, options);
      expect(blocked.status).toBe(status);
      expect(blocked.body.success).toBe(0);
      expect(blocked.body.error.details.map((d: { code: string }) => d.code)).toContain(code);
      expect(target.received).toHaveLength(1); // never forwarded
      const [refused] = await blocking.requests({ invalid: true });
      expect(refused?.fault).toBe('client');
      expect(refused?.status).toBe(status);
    },
  );
});

describe('both sides breaking the contract in one exchange', () => {
  it('journals a Bearer request answered 200 without a token as both sides’ fault, found by each fault filter', async () => {
    const target = await targets((_req, res) =>
      answerJson(res, 200, {
        success: 1,
        new_user_group: true,
        user_group: { team_id: 1, name: 'A', provided_id: 'a', properties: null },
      }),
    );
    const proxy = await proxies({ target: target.url });
    const headers = { authorization: `Bearer ${customerKey}`, 'content-type': 'application/json' };
    await call(proxy.url, 'GET', '/api/user', { headers, body: getA });
    const [entry] = await proxy.requests();
    expect(entry?.fault).toBe('both');
    expect(entry?.diagnostics.map((d) => [d.code, d.path, d.about])).toEqual([
      ['AUTH_BEARER', '/headers/authorization', 'request'],
      ['MISSING_FIELD', '/body/user_group/token', 'answer'],
    ]);
    for (const fault of ['client', 'provider', 'both'] as const) {
      expect(await proxy.requests({ fault }), fault).toEqual([entry]);
      const listed = await call(proxy.url, 'GET', `/__admin/requests?fault=${fault}`, { headers: {} });
      expect([listed.status, listed.body.map((e: { id: number }) => e.id)], fault).toEqual([
        200,
        [entry?.id],
      ]);
    }
  });

  it('lists under each fault filter only the entries of that side (or both)', async () => {
    let calls = 0;
    const target = await targets((_req, res) =>
      calls++ === 0
        ? answerJson(res, 200, { success: 1, user_group: group('a', token(1)) })
        : answerJson(res, 400, {
            success: 0,
            error: { code: 'VALIDATION_FAILED', message: 'no', details: [] },
          }),
    );
    const proxy = await proxies({ target: target.url });
    await call(proxy.url, 'GET', '/api/user', { body: getA }); // the provider's: no new_user_group
    await call(proxy.url, 'GET', '/api/user', { body: { name: 'A' } }); // the client's: no user_group_id
    const [provider, client] = await proxy.requests();
    expect([provider?.fault, client?.fault]).toEqual(['provider', 'client']);
    expect(await proxy.requests({ fault: 'provider' })).toEqual([provider]);
    expect(await proxy.requests({ fault: 'client' })).toEqual([client]);
    expect(await proxy.requests({ fault: 'both' })).toEqual([]);
    expect(provider?.diagnostics.map((d) => d.about)).toEqual(['answer']);
    expect(client?.diagnostics.map((d) => d.about)).toEqual([undefined]);
    await expect(proxy.requests({ fault: 'nobody' } as never)).rejects.toThrow(/fault must be one of/);
  });
});

describe('what the client sent, in the proxy journal', () => {
  it('keeps the headers and body of a request refused before forwarding, and of one forwarded, the key hidden', async () => {
    const target = await targets((req, res) =>
      req.method === 'PUT'
        ? answerJson(res, 200, {
            success: 1,
            user_group: group('a', token(1), { api_environment_tag: 'Customer' }),
          })
        : answerJson(res, 200, { success: 1, new_user_group: true, user_group: group('a', token(1)) }),
    );
    const blocking = await proxies({ target: target.url, blockInvalid: true });
    const bearer = { authorization: `Bearer ${customerKey}`, 'content-type': 'application/json' };
    expect((await call(blocking.url, 'GET', '/api/user', { headers: bearer, body: getA })).status).toBe(401);
    await call(blocking.url, 'GET', '/api/user', { body: getA });
    await call(blocking.url, 'PUT', '/api/user', { body: getA });
    await call(blocking.url, 'GET', '/api/user', { body: getA });
    expect(target.received).toHaveLength(3);
    const [refused, first, update, again] = await blocking.requests();
    expect(refused?.requestBody).toEqual(getA);
    expect(refused?.requestBodyNotKept).toBeNull();
    const authorization = (entry: typeof refused) =>
      entry?.requestHeaders.find((h) => h.name === 'authorization')?.value;
    expect(authorization(refused)).toBe('Bearer ‹16 characters: not read as an API key›');
    // A get-or-create's answer names no environment: the proxy learns a key's from an update or a rotation.
    expect([first?.keyEnvironment, authorization(first)]).toEqual([
      null,
      "Token ‹16 characters: a key whose environment no answer has shown yet (the proxy learns it from the service's answers)›",
    ]);
    expect([update?.keyEnvironment, authorization(update)]).toEqual([
      'Customer',
      'Token ‹16 characters: a key the service answers in Customer›',
    ]);
    expect(again?.keyEnvironment).toBe('Customer');
    expect(first?.requestHeaders.find((h) => h.name === 'content-type')?.value).toBe('application/json');
    expect(JSON.stringify(await blocking.requests())).not.toContain(customerKey);
  });
});

describe('a target that fails', () => {
  const answerA = (res: ServerResponse) =>
    answerJson(res, 200, { success: 1, new_user_group: true, user_group: group('a', token(1)) });

  it.each([
    {
      failure: 'resets the connection',
      act: (_req: Received, res: ServerResponse) => res.socket?.destroy(),
      status: 502,
      code: 'UPSTREAM_UNREACHABLE',
      says: 'closed the connection without answering; the service may or may not have acted on the request',
    },
    {
      failure: 'hangs past --timeout',
      act: () => undefined,
      status: 504,
      code: 'UPSTREAM_TIMEOUT',
      says: 'did not answer within 300 ms; the service is slow or hangs (raise the timeout option (--timeout)',
    },
  ])(
    'answers $status when it $failure, journals it as the provider’s, and serves the next request',
    async ({ act, status, code, says }) => {
      let calls = 0;
      const target = await targets((req, res) => (calls++ === 0 ? act(req, res) : answerA(res)));
      const proxy = await proxies({ target: target.url, timeout: 300 });
      const failed = await call(proxy.url, 'GET', '/api/user', { body: getA });
      expect(failed.status).toBe(status);
      expect(failed.body).toMatchObject({ success: 0, error: { code } });
      expect(failed.body.error.message).toContain(target.url);
      expect(failed.body.error.message).toContain(says);
      const next = await call(proxy.url, 'GET', '/api/user', { body: getA });
      expect(next.status).toBe(200);
      const [entry] = await proxy.requests({ invalid: true });
      expect(entry).toMatchObject({
        status,
        fault: 'provider',
        diagnostics: [expect.objectContaining({ code })],
      });
    },
  );

  it('answers 502 naming the target when nothing listens there, and keeps serving', async () => {
    const proxy = await proxies({ target: nothingListens });
    for (let i = 0; i < 2; i++) {
      const failed = await call(proxy.url, 'GET', '/api/user', { body: getA });
      expect(failed.status).toBe(502);
      expect(failed.body.error.code).toBe('UPSTREAM_UNREACHABLE');
      expect(failed.body.error.message).toBe(
        `the target ${nothingListens}/api/user refused the connection (is the service running, on that port?); the request did not reach the service`,
      );
    }
    expect(await proxy.requests({ invalid: true })).toHaveLength(2);
  });
});

describe('hostile framing through the proxy', () => {
  it('refuses Content-Length with Transfer-Encoding before anything reaches the target', async () => {
    const target = await targets((_req, res) => answerJson(res, 200, {}));
    const proxy = await proxies({ target: target.url });
    const body = '{"name":"A","user_group_id":"a"}';
    const smuggled = `GET /api/user HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${customerKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 40}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\nGET /api/user HTTP/1.1\r\nHost: x\r\n\r\n`;
    const result = await exchange(proxy.port, [smuggled], { timeoutMs: 3_000 });
    expect(result.responses[0]?.status).toBe(400);
    expect(result.responses[0]?.body?.error?.code).toBe('HTTP_MALFORMED');
    expect(result.responses).toHaveLength(1);
    expect(target.received).toEqual([]);
  });
});

describe('a request the dispatcher refuses', () => {
  it('is refused without a Host header as the mock refuses it, journaled, and never forwarded', async () => {
    const target = await targets((_req, res) => answerJson(res, 200, {}));
    const proxy = await proxies({ target: target.url });
    const body = '{"name":"A","user_group_id":"a"}';
    const hostless = `GET /api/user HTTP/1.1\r\nAuthorization: Token ${customerKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const result = await exchange(proxy.port, [hostless], { timeoutMs: 3_000 });
    expect(result.responses[0]?.status).toBe(400);
    expect(result.responses[0]?.body?.error?.code).toBe('HTTP_MALFORMED');
    expect(result.responses[0]?.body?.error?.details?.[0]?.path).toBe('/headers/host');
    expect(target.received).toEqual([]);
    expect(await proxy.requests({ invalid: true })).toMatchObject([{ status: 400, path: '/api/user' }]);
  });
});
