import { join } from 'node:path';
import { Client } from 'undici';
import { describe, expect, it } from 'vitest';
import { admin, hex64, type Mock, service, useMocks } from '../../support/admin.js';
import { call } from '../../support/http.js';
import { useTempDir } from '../../support/tempDir.js';

const start = useMocks();
const tempDir = useTempDir();

interface TenantBody {
  id: string;
  api_keys: { Customer: string; Testing: string };
}

async function createTenant(mock: Mock): Promise<TenantBody> {
  const created = await admin(mock.url, 'POST', '/__admin/tenants');
  expect(created.status).toBe(201);
  return created.body as TenantBody;
}

/** One test file's worth of traffic in one tenant: seeds, calls (one of them invalid), a fault. */
async function exercise(mock: Mock, tenant: TenantBody, name: string) {
  const key = tenant.api_keys.Customer;
  await admin(mock.url, 'POST', '/__admin/groups', {
    key,
    body: { environment: 'Testing', user_group_id: `${name}-seeded`, name },
  });
  await admin(mock.url, 'POST', '/__admin/faults', {
    key,
    body: { operationId: 'rotateUserGroupToken', status: 503 },
  });
  const created = await service(mock, 'GET', { user_group_id: name, name }, key);
  const invalid = await service(mock, 'GET', { name, userGroupId: name }, key);
  expect(invalid.status).toBe(400);
  return created.body.user_group.token as string;
}

describe('tenants', () => {
  it('creates a tenant with one fresh key per environment, answering 201', async () => {
    const mock = await start();
    const tenant = await createTenant(mock);
    expect(tenant.id).not.toBe('default');
    expect(tenant.api_keys.Customer).not.toBe(tenant.api_keys.Testing);
    const created = await service(mock, 'GET', { user_group_id: 'a', name: 'A' }, tenant.api_keys.Testing);
    expect(created.status).toBe(200);
  });

  it('keeps two tenants exercised concurrently from seeing each other’s groups, journal or faults', async () => {
    const mock = await start();
    const [one, two] = await Promise.all([createTenant(mock), createTenant(mock)]);
    const [tokenOne, tokenTwo] = await Promise.all([exercise(mock, one, 'one'), exercise(mock, two, 'two')]);

    for (const [tenant, own, other, ownToken, otherToken] of [
      [one, 'one', 'two', tokenOne, tokenTwo],
      [two, 'two', 'one', tokenTwo, tokenOne],
    ] as const) {
      const key = tenant.api_keys.Customer;
      const groups = await admin(mock.url, 'GET', '/__admin/groups', { key });
      expect(groups.body.map((g: { provided_id: string }) => g.provided_id).sort()).toEqual([
        own,
        `${own}-seeded`,
      ]);
      const journal = await admin(mock.url, 'GET', '/__admin/requests', { key });
      expect(journal.body).toHaveLength(2);
      expect(JSON.stringify(journal.body)).not.toContain(other);
      const faults = await admin(mock.url, 'GET', '/__admin/faults', { key });
      expect(faults.body).toHaveLength(1);
      expect((await admin(mock.url, 'GET', `/__admin/tokens/${ownToken}`, { key })).status).toBe(200);
      expect((await admin(mock.url, 'GET', `/__admin/tokens/${otherToken}`, { key })).status).toBe(404);
    }
    // The default scope saw none of it.
    expect((await admin(mock.url, 'GET', '/__admin/groups')).body).toEqual([]);
    expect((await admin(mock.url, 'GET', '/__admin/requests')).body).toEqual([]);
    // Each tenant's fault fires for its own rotation only, once.
    const rotateOne = await service(mock, 'POST', { current_token: tokenOne }, one.api_keys.Customer);
    expect(rotateOne.status).toBe(503);
    const rotateDefault = await service(mock, 'POST', { current_token: hex64('e') });
    expect(rotateDefault.status).toBe(404);
    expect(
      (await admin(mock.url, 'GET', '/__admin/faults', { key: two.api_keys.Customer })).body,
    ).toHaveLength(1);
  });

  it('resets one tenant without touching another', async () => {
    const mock = await start();
    const [one, two] = await Promise.all([createTenant(mock), createTenant(mock)]);
    await Promise.all([exercise(mock, one, 'one'), exercise(mock, two, 'two')]);
    await admin(mock.url, 'POST', '/__admin/reset', { key: one.api_keys.Testing });
    expect((await admin(mock.url, 'GET', '/__admin/groups', { key: one.api_keys.Customer })).body).toEqual(
      [],
    );
    expect(
      (await admin(mock.url, 'GET', '/__admin/groups', { key: two.api_keys.Customer })).body,
    ).toHaveLength(2);
    expect(
      (await admin(mock.url, 'GET', '/__admin/requests', { key: two.api_keys.Customer })).body,
    ).toHaveLength(2);
  });

  it('makes a deleted tenant’s keys unknown (401) to the service and to the admin API', async () => {
    const mock = await start();
    const tenant = await createTenant(mock);
    await service(mock, 'GET', { user_group_id: 'a', name: 'A' }, tenant.api_keys.Customer);
    const deleted = await admin(mock.url, 'DELETE', `/__admin/tenants/${tenant.id}`);
    expect(deleted.status).toBe(204);
    for (const key of [tenant.api_keys.Customer, tenant.api_keys.Testing]) {
      const call = await service(mock, 'GET', { user_group_id: 'a', name: 'A' }, key);
      expect(call.status).toBe(401);
      expect(call.body.error.code).toBe('AUTH_UNKNOWN_KEY');
      // What a request a test left running says once its tenant is gone: whose key it was, and the likely cause.
      expect(call.body.error.message).toBe(
        `the API key in Authorization is a key of tenant ${tenant.id}, which has been removed (a test's tenant is removed when its test ends): most likely a request sent after its test ended, by a promise the test left running; await every request before the test ends`,
      );
      const scoped = await admin(mock.url, 'GET', '/__admin/groups', { key });
      expect(scoped.status).toBe(401);
      expect(scoped.body.error.code).toBe('AUTH_UNKNOWN_KEY');
      expect(scoped.body.error.message).toBe(call.body.error.message);
    }
    const again = await admin(mock.url, 'DELETE', `/__admin/tenants/${tenant.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('TENANT_NOT_FOUND');
    // The same refusal names the fix for both ways of calling the controls.
    expect(again.body.error.message).toMatch(
      /POST \/__admin\/tenants \(in process: await mock\.createTenant\(\)\)/,
    );
    await expect(mock.deleteTenant(tenant.id)).rejects.toThrow(
      `user-group-mock: deleteTenant: ${again.body.error.message}`,
    );
  });

  it('stops accepting a deleted tenant’s key on a keep-alive connection that used it before', async () => {
    // Keys accepted on a connection are remembered for it; deleting the tenant must end that at once.
    const mock = await start();
    const tenant = await createTenant(mock);
    const key = tenant.api_keys.Customer;
    const client = new Client(mock.url, { pipelining: 1 });
    let connections = 0;
    client.on('connect', () => connections++);
    try {
      const send = async () => {
        const answer = await client.request({
          method: 'GET',
          path: '/api/user',
          headers: { authorization: `Token ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ user_group_id: 'a', name: 'A' }),
          reset: false, // undici closes the connection after a GET with a body unless told otherwise
        });
        const body = (await answer.body.json()) as { error?: { code: string; message: string } };
        return { status: answer.statusCode, body };
      };
      expect((await send()).status).toBe(200);
      expect((await send()).status).toBe(200);
      expect((await admin(mock.url, 'DELETE', `/__admin/tenants/${tenant.id}`)).status).toBe(204);
      const after = await send();
      expect(after.status).toBe(401);
      expect(after.body.error?.code).toBe('AUTH_UNKNOWN_KEY');
      expect(after.body.error?.message).toMatch(/is a key of tenant t-\w+, which has been removed/);
      expect(connections).toBe(1);
    } finally {
      await client.close();
    }
  });

  it.each([
    ['another tenant’s scope', 'other', 404],
    ['its own scope', 'own', 204],
    ['the default scope', 'default', 204],
  ] as const)('answers DELETE of a tenant from %s with %i', async (_case, scope, status) => {
    const mock = await start();
    const [target, other] = await Promise.all([createTenant(mock), createTenant(mock)]);
    const key = { other: other.api_keys.Customer, own: target.api_keys.Testing, default: undefined }[scope];
    const answer = await admin(mock.url, 'DELETE', `/__admin/tenants/${target.id}`, key ? { key } : {});
    expect(answer.status).toBe(status);
    const stillThere = await service(
      mock,
      'GET',
      { user_group_id: 'a', name: 'A' },
      target.api_keys.Customer,
    );
    expect(stillThere.status).toBe(status === 204 ? 401 : 200);
  });

  it("says who may remove a tenant when another tenant's scope tries, rather than that it does not exist", async () => {
    const mock = await start();
    const [target, other] = await Promise.all([createTenant(mock), createTenant(mock)]);
    const answer = await admin(mock.url, 'DELETE', `/__admin/tenants/${target.id}`, {
      key: other.api_keys.Customer,
    });
    expect(answer.body.error.message).toBe(
      `tenant "${target.id}" can be removed only by itself (Authorization: Token <one of its keys>) or from the default scope (no Authorization header); this call acts for tenant "${other.id}"`,
    );
    // The same answer for an id that does not exist: the call learns nothing of other tenants.
    const unknown = await admin(mock.url, 'DELETE', '/__admin/tenants/t-000000000000', {
      key: other.api_keys.Customer,
    });
    expect(unknown.body.error.message).toContain('can be removed only by itself');
  });

  it('refuses to delete the default tenant, pointing to reset', async () => {
    const mock = await start();
    const answer = await admin(mock.url, 'DELETE', '/__admin/tenants/default');
    expect(answer.status).toBe(404);
    expect(answer.body.error.message).toContain('/__admin/reset');
  });

  it('answers 401 AUTH_UNKNOWN_KEY, never the default scope, for an admin call with an unknown key', async () => {
    const mock = await start();
    await service(mock, 'GET', { user_group_id: 'a', name: 'A' });
    const answer = await admin(mock.url, 'GET', '/__admin/groups', { key: 'no-such-key' });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('AUTH_UNKNOWN_KEY');
  });

  it('keeps tenants and their groups across a restart with a database file, but not the journal', async () => {
    const db = join(tempDir(), 'db.json');
    const first = await start({ db });
    const tenant = await createTenant(first);
    const created = await service(first, 'GET', { user_group_id: 'a', name: 'A' }, tenant.api_keys.Customer);
    await admin(first.url, 'POST', '/__admin/faults', {
      key: tenant.api_keys.Customer,
      body: { status: 500 },
    });
    expect(await first.requests({}, tenant.id)).toHaveLength(1);
    await first.close();

    const second = await start({ db });
    const key = tenant.api_keys.Customer;
    const again = await service(second, 'GET', { user_group_id: 'a', name: 'A' }, key);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      new_user_group: false,
      user_group: { token: created.body.user_group.token },
    });
    const journal = await admin(second.url, 'GET', '/__admin/requests', { key });
    expect(journal.body.map((e: { status: number }) => e.status)).toEqual([200]);
    expect((await admin(second.url, 'GET', '/__admin/faults', { key })).body).toEqual([]);
  });
});

describe('a tenant key in a malformed Authorization header', () => {
  it.each([
    ['Bearer <key>', (key: string) => `Bearer ${key}`, 'AUTH_BEARER'],
    ['the key without Token', (key: string) => key, 'AUTH_SCHEME'],
    ['Token with two words', (key: string) => `Token ${key} extra`, 'AUTH_SCHEME'],
  ])('is journaled in that tenant, with its environment: %s', async (_name, header, code) => {
    const mock = await start();
    const tenant = await mock.createTenant();
    const answer = await call(mock.url, 'GET', '/api/user', {
      headers: { authorization: header(tenant.api_keys.Testing), 'content-type': 'application/json' },
      body: { name: 'A', user_group_id: 'a' },
    });
    expect(answer.status).toBe(401);
    const [entry, ...more] = await mock.requests({ invalid: true }, tenant.id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ status: 401, keyEnvironment: 'Testing', diagnostics: [{ code }] });
    expect(await mock.requests({ invalid: true })).toEqual([]);
  });
});

describe('the in-process controls given a tenant that does not exist', () => {
  it('throw, naming the mistake, instead of answering an empty journal', async () => {
    const mock = await start();
    const tenant = await mock.createTenant();
    const typo = `${tenant.id}x`;
    await expect(mock.requests({ invalid: true }, typo)).rejects.toThrow(`requests: no tenant "${typo}"`);
    await expect(mock.requests({ invalid: true }, tenant as never)).rejects.toThrow(
      'the tenant argument is object, not a tenant id',
    );
    await expect(mock.requests(tenant.id as never)).rejects.toThrow('the query object comes first');
    await expect(mock.groups(typo)).rejects.toThrow('groups: no tenant');
    await expect(mock.token('a'.repeat(64), typo)).rejects.toThrow('token: no tenant');
    await expect(mock.faults(typo)).rejects.toThrow('faults: no tenant');
    await expect(mock.injectFault({ status: 503 }, typo)).rejects.toThrow('injectFault: no tenant');
    await expect(mock.reset(typo)).rejects.toThrow('reset: no tenant');
    expect(await mock.requests({ invalid: true }, tenant.id)).toEqual([]);
  });
});
