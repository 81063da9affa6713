import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createValidatingProxy, type ValidatingProxy } from '../../../src/index.js';
import { admin } from '../../support/admin.js';
import { call, jsonHeaders, useMocks } from '../../support/http.js';
import { answerJson, useProxies, useTargets } from '../../support/proxy.js';
import { useTempDir } from '../../support/tempDir.js';

const mocks = useMocks();
const proxies = useProxies();
const targets = useTargets();
const dir = useTempDir('proxy-ca');

/** The admin routes a proxy serves: the journal, reset, health and the documents, none over groups or faults. */
const proxyRoutes =
  'POST /__admin/reset, GET /__admin/requests, DELETE /__admin/requests, GET /__admin/events, GET /__admin/health, GET /__admin/health/live, GET /__admin/health/ready, GET /__admin/openapi.json, GET /__admin/openapi.yaml, GET /openapi.json, GET /openapi.yaml';

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
  ])('%s %s answers 404 naming the proxy, its target and what the proxy serves', async (method, path) => {
    const target = await mocks();
    const proxy = await proxies({ target: target.url });

    const answer = await call(proxy.url, method, path, { headers: {}, body: {} });

    expect(answer.status).toBe(404);
    expect(answer.body.success).toBe(0);
    expect(answer.body.error.code).toBe('ROUTE_NOT_FOUND');
    expect(answer.body.error.message).toContain(`validating proxy in front of ${target.url}`);
    expect(answer.body.error.message).toContain('user-group-mock serve');
    expect(answer.body.error.message).toContain(
      `when that is a user-group-mock, ${method} ${target.url}${path}`,
    );
    expect(answer.body.error.message).toContain(
      `Here the admin API has ${proxyRoutes}, and the browser pages are /__admin/ui, /docs, /docs/admin.`,
    );
  });

  it('answers an admin path it does not have with 404 naming only the routes the proxy serves', async () => {
    const proxy = await proxies({ target: (await mocks()).url });

    const answer = await call(proxy.url, 'GET', '/__admin/nothing', { headers: {} });

    expect(answer.status).toBe(404);
    expect(answer.body.error.message).toBe(
      `no admin operation at "/__admin/nothing"; the admin API has ${proxyRoutes} (see openapi/admin.yaml)`,
    );
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
  ])('%s empties the journal and forgets the groups the reference model has seen', async (_how, reset) => {
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
    expect((await proxy.requests()).map((e) => [e.status, e.diagnostics])).toEqual([[200, []]]);
  });

  it('says to reset it too when the service behind it seems to have lost the groups it saw', async () => {
    const mock = await mocks();
    const proxy = await proxies({ target: mock.url });
    const getA = { headers: jsonHeaders(), body: { name: 'A', user_group_id: 'a' } };
    await call(proxy.url, 'GET', '/api/user', getA);
    await mock.reset(); // behind the proxy's back
    await call(proxy.url, 'GET', '/api/user', getA);
    const hint =
      "if the service's groups were removed behind the proxy (a reset, a new database), reset the proxy too (POST /__admin/reset on it, or reset()), so that it forgets the groups it saw";
    const [, again] = await proxy.requests();
    const hinted = (again?.diagnostics ?? []).filter((d) => d.message.endsWith(hint)).map((d) => d.code);
    expect(hinted).toEqual(['PROVIDER_GROUP_CREATED_AGAIN']);
  });

  it('GET /__admin/health says it is a proxy, names the target and whether it accepts connections', async () => {
    const target = await targets((_req, res) => answerJson(res, 200, {}));
    const proxy = await proxies({ target: `${target.url}/base/` });

    const up = await admin(proxy.url, 'GET', '/__admin/health');
    await target.close();
    const down = await admin(proxy.url, 'GET', '/__admin/health');

    const health = { version: expect.any(String), mode: 'proxy', target: target.url };
    expect(up.body).toEqual({ ...health, status: 'ready', target_reachable: true });
    expect(down.body).toEqual({ ...health, status: 'degraded', target_reachable: false });
    expect(await proxy.health()).toEqual(down.body);
  });

  it('GET /__admin/health/ready answers 200 while the target accepts connections and 503 degraded once it does not', async () => {
    const target = await targets((_req, res) => answerJson(res, 200, {}));
    const proxy = await proxies({ target: target.url });

    const up = await admin(proxy.url, 'GET', '/__admin/health/ready');
    await target.close();
    const down = await admin(proxy.url, 'GET', '/__admin/health/ready');

    expect([up.status, up.body]).toEqual([200, { status: 'ready' }]);
    expect([down.status, down.body]).toEqual([503, { status: 'degraded' }]);
  });
});

describe('createValidatingProxy given a setting that cannot work', () => {
  it.each([
    [{ target: 'staging.example.com' }, 'the target option (--target) "staging.example.com"'],
    [{ target: 'http://127.0.0.1:9', host: '0.0.0.0' }, 'needs the adminKey option (--admin-key)'],
    [{ target: 'http://127.0.0.1:9', targetCa: '/no/such/ca.pem' }, 'the targetCa option (--target-ca)'],
  ])('rejects %j with a message naming the option and its flag', async (options, message) => {
    const started = createValidatingProxy({ port: 0, ...options });
    await expect(started).rejects.toMatchObject({ name: 'ProxyOptionError' });
    await expect(started).rejects.toThrow(message);
  });

  it.each([
    [
      'a file that is not PEM',
      'not a certificate\n',
      'holds no PEM certificate (no "-----BEGIN CERTIFICATE-----" block)',
    ],
    [
      'a PEM block that is not a certificate',
      '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n',
      'holds a certificate block that cannot be parsed',
    ],
  ])('rejects %s as targetCa, naming the file and the option', async (_, content, message) => {
    const file = join(dir(), 'ca.pem');
    writeFileSync(file, content);
    const started = createValidatingProxy({ port: 0, target: 'https://127.0.0.1:9', targetCa: file });
    await expect(started).rejects.toMatchObject({ name: 'ProxyOptionError' });
    await expect(started).rejects.toThrow(`${file}, the targetCa option (--target-ca), ${message}`);
  });
});
