import { describe, expect, it } from 'vitest';
import { call, jsonHeaders, testingKey, useMocks } from '../../support/http.js';
import { answerJson, type Received, useProxies, useTargets } from '../../support/proxy.js';
import { rawRequest, sendRaw } from '../../support/rawHttp.js';

const mocks = useMocks();
const proxies = useProxies();
const targets = useTargets();

/** One run of every operation, successes and refusals, as a client would send them. */
const script = (token: () => string) =>
  [
    ['GET', { name: 'Customer A', user_group_id: 'customer-a', properties: { plan: 'pro' } }],
    ['GET', { name: 'Customer A', user_group_id: 'customer-a' }],
    ['PUT', { name: 'Customer A (EU)', user_group_id: 'customer-a', mapping: { '40': '213' } }],
    ['POST', () => ({ current_token: token() })],
    ['POST', () => ({ current_token: '0'.repeat(64) })],
    ['PUT', { name: 'Nobody', user_group_id: 'never-made' }],
    ['GET', { name: 'Test A', user_group_id: 'customer-a' }, testingKey],
  ] as const;

describe('the proxy in front of the mock', () => {
  it('answers every operation exactly as the mock does directly, and journals no invalid exchange', async () => {
    const behind = await mocks({ seed: 7 });
    const direct = await mocks({ seed: 7 });
    const proxy = await proxies({ target: behind.url });
    const seen: Record<string, string> = {};
    for (const [via, url] of [
      ['proxy', proxy.url],
      ['direct', direct.url],
    ] as const) {
      let token = '';
      const answers = [];
      for (const [method, body, key] of script(() => token)) {
        const sent = typeof body === 'function' ? body() : body;
        const answer = await call(url, method, '/api/user', { headers: jsonHeaders(key), body: sent });
        token = (answer.body?.user_group?.token as string | undefined) ?? token;
        answers.push([
          answer.status,
          answer.headers['content-type'],
          answer.headers['x-mock-notice'],
          answer.text,
        ]);
      }
      seen[via] = JSON.stringify(answers);
    }
    expect(seen.proxy).toBe(seen.direct);
    expect(JSON.parse(seen.proxy as string).map((a: unknown[]) => a[0])).toEqual([
      200, 200, 200, 200, 404, 404, 200,
    ]);
    expect(await proxy.requests()).toHaveLength(7);
    expect(await proxy.requests({ invalid: true })).toEqual([]);
  });

  it('passes on the answer to a request at the body limit, which repeats the group it sent and is larger', async () => {
    const bodyLimit = 2_000;
    const behind = await mocks({ bodyLimit });
    const proxy = await proxies({ target: behind.url, bodyLimit });
    const base = { name: 'Big', user_group_id: 'big', properties: { note: '' } };
    const room = bodyLimit - JSON.stringify(base).length;
    const body = { ...base, properties: { note: 'é'.repeat(Math.floor(room / 2)) + 'a'.repeat(room % 2) } };
    expect(Buffer.byteLength(JSON.stringify(body))).toBe(bodyLimit);
    const answer = await call(proxy.url, 'GET', '/api/user', { body });
    expect([answer.status, Buffer.byteLength(answer.text) > bodyLimit]).toEqual([200, true]);
    expect((await proxy.requests({ invalid: true })).length).toBe(0);
  });

  it('forwards the GET body, Authorization and content type byte for byte, drops hop-by-hop headers and rewrites Host', async () => {
    const target = await targets((_req, res) =>
      answerJson(res, 200, {
        success: 1,
        new_user_group: true,
        user_group: { team_id: 1, token: 'a'.repeat(64), name: 'A', provided_id: 'a', properties: null },
      }),
    );
    const proxy = await proxies({ target: target.url });
    const body = '{ "name" : "A",\n  "user_group_id":"a" }';
    const answer = await sendRaw(
      proxy.url,
      rawRequest(
        'GET',
        '/api/user?trace=1',
        [
          ['Authorization', 'Token  odd-spacing-key'],
          ['Content-Type', 'application/json; charset=UTF-8'],
          ['Connection', 'keep-alive, X-Hop'],
          ['X-Hop', 'dropped'],
          ['Keep-Alive', 'timeout=5'],
          ['Proxy-Authorization', 'Basic eA=='],
          ['X-End-To-End', 'kept'],
        ],
        body,
      ),
    );
    expect(answer.status).toBe(200);
    const got = target.received[0] as Received;
    const headers = new Map<string, string>();
    for (let i = 0; i < got.rawHeaders.length; i += 2)
      headers.set((got.rawHeaders[i] as string).toLowerCase(), got.rawHeaders[i + 1] as string);
    expect(got?.method).toBe('GET');
    expect(got?.url).toBe('/api/user?trace=1');
    expect(got?.body.toString('utf8')).toBe(body);
    expect(headers.get('authorization')).toBe('Token  odd-spacing-key');
    expect(headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(headers.get('host')).toBe(new URL(target.url).host);
    expect(headers.get('x-end-to-end')).toBe('kept');
    for (const dropped of ['x-hop', 'keep-alive', 'proxy-authorization', 'transfer-encoding'])
      expect(headers.has(dropped), dropped).toBe(false);
  });
});
