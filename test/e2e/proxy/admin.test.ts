import { describe, expect, it } from 'vitest';
import type { ValidatingProxy } from '../../../src/index.js';
import { call, jsonHeaders, useMocks } from '../../support/http.js';
import { answerJson, useProxies, useTargets } from '../../support/proxy.js';

const mocks = useMocks();
const proxies = useProxies();
const targets = useTargets();

describe("the proxy's admin API", () => {
  it.each([
    ['GET', '/__admin/groups'],
    ['POST', '/__admin/groups'],
    ['GET', `/__admin/tokens/${'a'.repeat(64)}`],
    ['GET', '/__admin/tenants'],
    ['POST', '/__admin/tenants'],
    ['DELETE', '/__admin/tenants/t-1'],
    ['GET', '/__admin/faults'],
    ['POST', '/__admin/faults'],
    ['DELETE', '/__admin/faults'],
  ])('%s %s answers 404 naming the proxy and its target', async (method, path) => {
    const target = await mocks();
    const proxy = await proxies({ target: target.url });

    const answer = await call(proxy.url, method, path, { headers: {}, body: {} });

    expect(answer.status).toBe(404);
    expect(answer.body.success).toBe(0);
    expect(answer.body.error.code).toBe('ROUTE_NOT_FOUND');
    expect(answer.body.error.message).toContain(`validating proxy in front of ${target.url}`);
    expect(answer.body.error.message).toContain('user-group-mock serve');
  });

  it('lists the verdicts for a call that carries the API key of the proxied traffic', async () => {
    const target = await mocks();
    const proxy = await proxies({ target: target.url });
    await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: { name: 'A' } });

    const answer = await call(proxy.url, 'GET', '/__admin/requests?invalid=true', { headers: jsonHeaders() });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject([{ status: 400, fault: 'client' }]);
  });

  it.each([
    [
      'POST /__admin/reset',
      (proxy: ValidatingProxy) => call(proxy.url, 'POST', '/__admin/reset', { headers: {} }),
    ],
    ['reset()', (proxy: ValidatingProxy) => proxy.reset()],
  ])('%s empties the journal and forgets the groups the traffic rules have seen', async (_how, reset) => {
    let answered = 0;
    const newTokenEachTime = await targets((_req, res) => {
      answered++;
      answerJson(res, 200, {
        success: 1,
        new_user_group: answered === 1,
        user_group: {
          team_id: 1,
          token: String(answered).repeat(64),
          name: 'A',
          provided_id: 'a',
          properties: null,
        },
      });
    });
    const proxy = await proxies({ target: newTokenEachTime.url });
    const getA = { headers: jsonHeaders(), body: { name: 'A', user_group_id: 'a' } };
    await call(proxy.url, 'GET', '/api/user', getA);

    await reset(proxy);
    await call(proxy.url, 'GET', '/api/user', getA);

    // Without the reset, the second token would be PROVIDER_TOKEN_CHANGED.
    expect(proxy.requests().map((e) => [e.status, e.diagnostics])).toEqual([[200, []]]);
  });
});
