import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../../src/index.js';
import { call, customerKey, jsonHeaders, useMocks } from '../../support/http.js';
import { postgresAvailable, startTestCluster, type TestCluster } from '../../support/postgres.js';

/** `server.admin`: the fixture controls, awaitable, in process, on every store (PostgreSQL's only in-process reads). */
const stores = [
  { name: 'in memory', postgres: false },
  ...(postgresAvailable() ? [{ name: 'PostgreSQL', postgres: true }] : []),
];

describe.each(stores)('server.admin, $name', ({ postgres }) => {
  let cluster: TestCluster | undefined;
  beforeAll(async () => {
    if (postgres) cluster = await startTestCluster();
  }, 60_000);
  afterAll(() => cluster?.remove());
  const start = useMocks();
  const fresh = async (): Promise<MockServer> =>
    start(cluster === undefined ? {} : { db: await cluster.createDatabase() });

  it('reads the groups, tokens, journal, faults, tenants and health of the store the service wrote', async () => {
    const mock = await fresh();
    const made = await call(mock.url, 'GET', '/api/user', {
      body: { name: 'Made', user_group_id: 'made' },
      headers: jsonHeaders(customerKey),
    });
    const token = made.body.user_group.token as string;
    expect((await mock.admin.groups()).map((group) => group.provided_id)).toEqual(['made']);
    expect(await mock.admin.token(token)).toMatchObject({ provided_id: 'made', name: 'Made' });
    expect((await mock.admin.requests()).map((entry) => entry.status)).toEqual([200]);
    const planned = await mock.admin.injectFault({ status: 503 });
    expect(planned.remaining).toBe(1);
    expect((await mock.admin.faults()).map((fault) => fault.remaining)).toEqual([1]);
    await mock.admin.clearFaults();
    expect(await mock.admin.faults()).toEqual([]);
    expect((await mock.admin.tenants()).map((tenant) => [tenant.id, tenant.groups])).toEqual([
      ['default', 1],
    ]);
    expect(await mock.admin.health()).toMatchObject({
      status: 'ready',
      store: postgres ? 'postgres' : 'memory',
    });
    await mock.admin.clearRequests();
    expect(await mock.admin.requests()).toEqual([]);
  });

  it.skipIf(!postgres)(
    'makes tenants with ids and keys of their own on replicas started with the same --seed',
    async () => {
      const db = await (cluster as TestCluster).createDatabase();
      const [a, b] = [await start({ db, seed: 7 }), await start({ db, seed: 7 })];
      const made = [];
      for (let i = 0; i < 4; i++) made.push(await a.admin.createTenant(), await b.admin.createTenant());
      const keys = made.flatMap((tenant) => [tenant.api_keys.Customer, tenant.api_keys.Testing]);
      expect(new Set(keys).size).toBe(keys.length);
      expect(new Set(made.map((tenant) => tenant.id)).size).toBe(made.length);
      // Each key still reaches its own tenant, through either replica.
      for (const [tenant, through] of made.map((tenant, i) => [tenant, i % 2 === 0 ? b : a] as const)) {
        const headers = jsonHeaders(tenant.api_keys.Testing);
        await call(through.url, 'GET', '/api/user', { body: { name: 'A', user_group_id: 'a' }, headers });
        expect((await through.admin.groups(tenant.id)).map((g) => g.environment)).toEqual(['Testing']);
      }
    },
  );

  it("journals a tenant key's wrong path in that tenant, and counts the entries dropped past journalLimit", async () => {
    const mock =
      cluster === undefined
        ? await start({ journalLimit: 2 })
        : await start({ journalLimit: 2, db: await cluster.createDatabase() });
    const tenant = await mock.admin.createTenant();
    const headers = jsonHeaders(tenant.api_keys.Customer);
    for (const path of ['/api/users', '/api/user/', '/api/users'])
      expect(
        (await call(mock.url, 'GET', path, { body: { name: 'A', user_group_id: 'a' }, headers })).status,
      ).toBe(404);
    expect((await mock.admin.requests({ invalid: true }, tenant.id)).map((e) => e.path)).toEqual([
      '/api/user/',
      '/api/users',
    ]);
    expect(await mock.admin.requests()).toEqual([]);
    expect(await mock.admin.droppedRequests(tenant.id)).toBe(1);
    const listed = await call(mock.url, 'GET', '/__admin/requests', {
      headers: { authorization: `Token ${tenant.api_keys.Testing}` },
    });
    expect(listed.headers['x-journal-dropped']).toBe('1');
    await mock.admin.reset(tenant.id);
    expect(await mock.admin.droppedRequests(tenant.id)).toBe(0);
  });

  it('removes the groups of one environment or of both over DELETE /__admin/groups, keeping the journal and faults', async () => {
    const mock = await fresh();
    for (const environment of ['Customer', 'Testing'] as const)
      for (const id of ['a', 'b'])
        expect((await mock.admin.seedGroup({ environment, user_group_id: id, name: id })).provided_id).toBe(
          id,
        );
    await call(mock.url, 'PUT', '/api/user', {
      body: { user_group_id: 'x', name: 'X' },
      headers: { 'content-type': 'application/json' },
    });
    expect((await mock.admin.injectFault({ status: 503 })).status).toBe(503);
    const ids = async () =>
      (await mock.admin.groups()).map((g) => `${g.environment} ${g.provided_id}`).sort();

    const testing = await call(mock.url, 'DELETE', '/__admin/groups?environment=Testing');
    expect(testing.status).toBe(204);
    expect(await ids()).toEqual(['Customer a', 'Customer b']);
    await mock.admin.removeGroups();
    expect(await ids()).toEqual([]);
    expect((await mock.admin.requests({ invalid: true })).map((entry) => entry.status)).toEqual([401]);
    expect(await mock.admin.faults()).toHaveLength(1);
    expect((await call(mock.url, 'DELETE', '/__admin/groups?environment=Prod')).status).toBe(400);
  });
});
