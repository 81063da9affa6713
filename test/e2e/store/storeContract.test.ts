import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createMockServer,
  type JournalEntry,
  type MockServer,
  type MockServerOptions,
} from '../../../src/index.js';
import { admin } from '../../support/admin.js';
import { type Answer, call, customerKey, jsonHeaders, testingKey } from '../../support/http.js';
import {
  postgresAvailable,
  postgresMissing,
  postgresRequired,
  startTestCluster,
  type TestCluster,
} from '../../support/postgres.js';
import { type TempDir, tempDir } from '../../support/tempDir.js';

/**
 * The behaviour every store must show, one table run against each: in memory, a database file, and PostgreSQL. Each
 * case talks to the mock over HTTP only (the service and the admin API), on a fresh store, and restarts it where the
 * store is durable.
 */
interface StoreUnderTest {
  readonly name: string;
  readonly durable: boolean;
  /** What `/__admin/health` names as the store. */
  readonly kind: 'memory' | 'file' | 'postgres';
  /** Options for a fresh store; the same options again open the same store. */
  fresh(): Promise<MockServerOptions>;
}

const available = postgresAvailable();
if (!available) console.warn(postgresMissing);
let cluster: TestCluster | undefined;
const made: TempDir[] = [];
const fileStore = async (): Promise<MockServerOptions> => {
  const dir = await tempDir('contract');
  made.push(dir);
  return { db: dir.db };
};

const stores: readonly StoreUnderTest[] = [
  { name: 'in memory', durable: false, kind: 'memory', fresh: async () => ({}) },
  { name: 'a database file', durable: true, kind: 'file', fresh: fileStore },
  ...(available
    ? [
        {
          name: 'PostgreSQL',
          durable: true,
          kind: 'postgres' as const,
          fresh: async () => ({ db: await (cluster as TestCluster).createDatabase() }),
        },
      ]
    : []),
];

/** What each store's controls answered, by store: every store must answer what the one in memory did. */
const transcripts = new Map<string, unknown>();
/** A journal entry without what differs from run to run (its time and duration) or by store (its id). */
/** An entry as every store must keep it alike: its Host names the port of each store's own server, so it is left out. */
const entryShape = ({ id, time, durationMs, requestHeaders, ...entry }: JournalEntry) => ({
  ...entry,
  requestHeaders: requestHeaders.filter((header) => header.name.toLowerCase() !== 'host'),
});

const api = (mock: MockServer, method: string, body: unknown, key = customerKey): Promise<Answer> =>
  call(mock.url, method, '/api/user', { body, headers: jsonHeaders(key) });

describe.runIf(!available && postgresRequired)('the PostgreSQL store on CI', () => {
  it('finds initdb on PATH', () => {
    expect(available, postgresMissing).toBe(true);
  });
});

describe.each(stores)('the store contract with $name', (store) => {
  beforeAll(async () => {
    if (store.name === 'PostgreSQL') cluster ??= await startTestCluster();
  }, 60_000);
  afterAll(() => {
    if (store.name === 'PostgreSQL') {
      cluster?.remove();
      cluster = undefined;
    }
  });

  const opened: MockServer[] = [];
  afterEach(async () => {
    for (const mock of opened.splice(0)) await mock.close();
    for (const dir of made.splice(0)) await dir.remove();
  });
  async function start(options: MockServerOptions): Promise<MockServer> {
    const mock = await createMockServer(options);
    opened.push(mock);
    return mock;
  }

  it('creates a group once and then returns it unchanged, naming the fields that differ', async () => {
    const mock = await start(await store.fresh());
    const created = await api(mock, 'GET', { name: 'One', user_group_id: 'g-1', properties: { a: 1 } });
    const again = await api(mock, 'GET', { name: 'Other', user_group_id: 'g-1' });
    expect(created.body.new_user_group).toBe(true);
    expect(again.body).toEqual({ ...created.body, new_user_group: false });
    expect(again.headers['x-mock-notice']).toMatch(/name differs/);
    const other = await api(mock, 'GET', { name: 'Two', user_group_id: 'g-2' });
    expect(other.body.user_group.team_id).not.toBe(created.body.user_group.team_id);
    const testing = await api(mock, 'GET', { name: 'One', user_group_id: 'g-1' }, testingKey);
    expect(testing.body.new_user_group).toBe(true);
  });

  it('updates the fields sent, keeps the others, and rotates a token so that the old one is refused', async () => {
    const options = await store.fresh();
    const mock = await start(options);
    const created = await api(mock, 'GET', { name: 'One', user_group_id: 'g-1', mapping: { a: 'b' } });
    const updated = await api(mock, 'PUT', { user_group_id: 'g-1', properties: { tier: 'gold' } });
    expect(updated.body.user_group).toMatchObject({ name: 'One', properties: { tier: 'gold' } });
    const token = created.body.user_group.token as string;
    const rotated = await api(mock, 'POST', { current_token: token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.user_group.token).not.toBe(token);
    const reused = await api(mock, 'POST', { current_token: token });
    expect(reused.body.error.code).toBe('TOKEN_NOT_FOUND');
    // The mock knows the token was rotated away: it says so, and when, rather than "may have been rotated".
    expect(reused.body.error.message).toMatch(
      /^current_token was the token of group "g-1" \(Customer\) until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, when a rotation replaced it; use the group's current token: GET \/api\/user with \{"user_group_id": "g-1", "name": …\} answers it \(Customer key\)$/,
    );
    const when = /until (\S+ \S+) UTC/.exec(reused.body.error.message)?.[1];
    expect(Math.abs(Date.parse(`${when?.replace(' ', 'T')}Z`) - Date.now())).toBeLessThan(60_000);
    const never = await api(mock, 'POST', { current_token: 'e'.repeat(64) });
    expect(never.body.error.message).toContain('it may have been rotated already');
    expect((await admin(mock.url, 'GET', `/__admin/tokens/${token}`)).status).toBe(404);
    const groups = (await admin(mock.url, 'GET', '/__admin/groups')).body;
    expect(groups).toEqual([
      expect.objectContaining({
        provided_id: 'g-1',
        token: rotated.body.user_group.token,
        mapping: { a: 'b' },
        properties: { tier: 'gold' },
      }),
    ]);
    if (!store.durable) return;
    await mock.close();
    const restarted = await start(options);
    expect((await admin(restarted.url, 'GET', '/__admin/groups')).body).toEqual(groups);
  });

  it('names the other environment when a key of one updates or rotates a group of the other', async () => {
    const mock = await start(await store.fresh());
    const testing = await api(mock, 'GET', { name: 'T', user_group_id: 'g-t' }, testingKey);
    const put = await api(mock, 'PUT', { user_group_id: 'g-t', name: 'U' });
    expect(put.status).toBe(404);
    expect(put.body.error.code).toBe('GROUP_NOT_FOUND');
    expect(put.body.error.message).toContain(
      "but the Testing environment has one: the API key decides the environment, so update it with this tenant's Testing key",
    );
    const nowhere = await api(mock, 'PUT', { user_group_id: 'g-none', name: 'U' });
    expect(nowhere.body.error.message).toContain('create it first with GET /api/user');
    const rotation = await api(mock, 'POST', { current_token: testing.body.user_group.token });
    expect(rotation.status).toBe(404);
    expect(rotation.body.error.code).toBe('TOKEN_NOT_FOUND');
    expect(rotation.body.error.message).toContain(
      'current_token is the token of group "g-t" in the Testing environment, not in the Customer environment of this API key',
    );
    expect((await admin(mock.url, 'GET', '/__admin/groups')).body).toEqual([
      expect.objectContaining({ provided_id: 'g-t', name: 'T', token: testing.body.user_group.token }),
    ]);
  });

  it('refuses a group token a rotation replaced, sent as the API key, as a group token', async () => {
    const options = await store.fresh();
    const mock = await start(options);
    const created = await api(mock, 'GET', { name: 'One', user_group_id: 'g-1' });
    const old = created.body.user_group.token as string;
    expect((await api(mock, 'POST', { current_token: old })).status).toBe(200);
    const refused = await api(mock, 'GET', { name: 'One', user_group_id: 'g-1' }, old);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('AUTH_GROUP_TOKEN_AS_KEY');
    if (store.kind !== 'postgres') return;
    // Another replica never saw the rotation: the journal the replicas share tells it.
    const replica = await start(options);
    const there = await api(replica, 'GET', { name: 'One', user_group_id: 'g-1' }, old);
    expect(there.body.error.code).toBe('AUTH_GROUP_TOKEN_AS_KEY');
    const unknown = await api(replica, 'GET', { name: 'One', user_group_id: 'g-1' }, 'f'.repeat(64));
    expect(unknown.body.error.code).toBe('AUTH_UNKNOWN_KEY');
  });

  it('refuses a group token sent as the API key as a group token, on the service and the admin API alike', async () => {
    const options = await store.fresh();
    const mock = await start(options);
    const token = (await api(mock, 'GET', { name: 'One', user_group_id: 'g-1' })).body.user_group
      .token as string;
    const replicas = store.kind === 'postgres' ? [mock, await start(options)] : [mock];
    for (const replica of replicas) {
      const service = await api(replica, 'GET', { name: 'One', user_group_id: 'g-1' }, token);
      const scoped = await admin(replica.url, 'GET', '/__admin/requests', { key: token });
      expect([service.status, scoped.status]).toEqual([401, 401]);
      expect([service.body.error.code, scoped.body.error.code]).toEqual([
        'AUTH_GROUP_TOKEN_AS_KEY',
        'AUTH_GROUP_TOKEN_AS_KEY',
      ]);
    }
  });

  it('compares ids exactly as sent: NFC and NFD are two groups, a backslash is kept', async () => {
    const mock = await start(await store.fresh());
    const ids = ['caf\u00e9', 'cafe\u0301', 'back\\slash', '__proto__'];
    for (const id of ids)
      expect((await api(mock, 'GET', { name: id, user_group_id: id })).body.new_user_group).toBe(true);
    const listed = (await admin(mock.url, 'GET', '/__admin/groups')).body as {
      provided_id: string;
      name: string;
    }[];
    expect(listed.map((g) => g.provided_id).sort()).toEqual([...ids].sort());
    expect(listed.every((g) => g.name === g.provided_id)).toBe(true);
  });

  it('refuses a seeded group whose id, token or team_id is taken, and never hands out a seeded team_id again', async () => {
    const mock = await start(await store.fresh());
    const seeded = await admin(mock.url, 'POST', '/__admin/groups', {
      body: {
        environment: 'Customer',
        user_group_id: 's-1',
        name: 'Seeded',
        token: 'a'.repeat(64),
        team_id: 2,
      },
    });
    expect(seeded.status).toBe(201);
    for (const clash of [
      { user_group_id: 's-1', path: '/body/user_group_id' },
      { user_group_id: 's-2', token: 'a'.repeat(64), path: '/body/token' },
      { user_group_id: 's-3', team_id: 2, path: '/body/team_id' },
    ]) {
      const { path, ...fields } = clash;
      const refused = await admin(mock.url, 'POST', '/__admin/groups', {
        body: { environment: 'Customer', name: 'Clash', ...fields },
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.details[0].path).toBe(path);
    }
    const teamIds = [];
    for (const id of ['n-1', 'n-2', 'n-3'])
      teamIds.push((await api(mock, 'GET', { name: id, user_group_id: id })).body.user_group.team_id);
    expect(teamIds).not.toContain(2);
    expect(new Set(teamIds).size).toBe(3);
  });

  it('keeps tenants apart, removes a tenant with its groups, and refuses its keys afterwards', async () => {
    const mock = await start(await store.fresh());
    const tenant = (await admin(mock.url, 'POST', '/__admin/tenants')).body;
    const key = tenant.api_keys.Customer as string;
    const made = await api(mock, 'GET', { name: 'T', user_group_id: 'g-1' }, key);
    expect(made.body.new_user_group).toBe(true);
    expect((await api(mock, 'GET', { name: 'D', user_group_id: 'g-1' })).body.new_user_group).toBe(true);
    expect((await admin(mock.url, 'GET', '/__admin/groups', { key })).body).toHaveLength(1);
    const tenants = (await admin(mock.url, 'GET', '/__admin/tenants')).body as {
      id: string;
      groups: number;
    }[];
    expect(tenants.map((t) => [t.id, t.groups])).toEqual([
      ['default', 1],
      [tenant.id, 1],
    ]);
    expect((await admin(mock.url, 'DELETE', `/__admin/tenants/${tenant.id}`)).status).toBe(204);
    const refused = await api(mock, 'GET', { name: 'T', user_group_id: 'g-1' }, key);
    expect(refused.body.error.code).toBe('AUTH_UNKNOWN_KEY');
    expect((await admin(mock.url, 'GET', `/__admin/tokens/${made.body.user_group.token}`)).status).toBe(404);
  });

  it('journals requests and strikes planned faults, and a reset empties groups, journal and faults', async () => {
    const mock = await start(await store.fresh());
    await api(mock, 'GET', { name: 'One', user_group_id: 'g-1' });
    await api(mock, 'GET', { user_group_id: 'g-2' });
    const invalid = (await admin(mock.url, 'GET', '/__admin/requests?invalid=true')).body;
    expect(invalid.map((e: { status: number }) => e.status)).toEqual([400]);
    await admin(mock.url, 'POST', '/__admin/faults', { body: { status: 503, times: 2 } });
    await admin(mock.url, 'POST', '/__admin/faults', { body: { status: 502 } });
    expect(
      (await admin(mock.url, 'GET', '/__admin/faults')).body.map((f: { remaining: number }) => f.remaining),
    ).toEqual([2, 1]);
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await api(mock, 'GET', { name: 'One', user_group_id: 'g-1' })).status);
    expect(statuses).toEqual([503, 503, 502, 200]);
    await admin(mock.url, 'POST', '/__admin/faults', { body: { status: 500 } });
    expect((await admin(mock.url, 'POST', '/__admin/reset')).status).toBe(204);
    expect((await admin(mock.url, 'GET', '/__admin/groups')).body).toEqual([]);
    expect((await admin(mock.url, 'GET', '/__admin/requests')).body).toEqual([]);
    expect((await admin(mock.url, 'GET', '/__admin/faults')).body).toEqual([]);
    const health = (await admin(mock.url, 'GET', '/__admin/health')).body;
    expect(health).toMatchObject({ status: 'ready', store: store.kind });
  });

  it('answers every control, awaited, as every other store does, and refuses an unknown tenant in each', async () => {
    const mock = await start({ ...(await store.fresh()), seed: 29 });
    const tenant = await mock.createTenant();
    const heard: number[] = [];
    const stop = await mock.watchRequests((entry) => heard.push(entry.status), tenant.id);
    const key = tenant.api_keys.Customer;
    const made = (await api(mock, 'GET', { name: 'Made', user_group_id: 'made' }, key)).body.user_group;
    await api(mock, 'PUT', { user_group_id: 'made' }, key);
    // A given team_id: PostgreSQL hands team ids out to each replica in blocks (decision 17).
    const seed = { environment: 'Testing', user_group_id: 's', name: 'S', team_id: 50 } as const;
    /** The code a control rejected with (a `MockControlError`'s), or undefined when it resolved. */
    const refusal = (control: Promise<unknown>) =>
      control.then(
        () => undefined,
        (error: { code?: string }) => error.code,
      );
    const seeded = await mock.seedGroup(seed, tenant.id);
    const taken = await refusal(mock.seedGroup(seed, tenant.id));
    const planned = await mock.injectFault({ status: 503, times: 2 }, tenant.id);
    const refusedFault = await refusal(mock.injectFault({ times: 1 } as never, tenant.id));
    stop();
    const transcript = {
      tenant: { id: tenant.id, keys: tenant.keys },
      seeded,
      taken,
      planned,
      refusedFault,
      heard,
      groups: await mock.groups(tenant.id),
      testing: await mock.groups(tenant.id, 'Testing'),
      token: await mock.token(made.token, tenant.id),
      elsewhere: await mock.token(made.token),
      requests: (await mock.requests({}, tenant.id)).map(entryShape),
      invalid: (await mock.requests({ invalid: true }, tenant.id)).map(entryShape),
      dropped: await mock.droppedRequests(tenant.id),
      faults: await mock.faults(tenant.id),
      tenants: await mock.tenants(),
      ownScope: await mock.tenants(tenant.id),
      health: await mock.health(),
      afterClearFaults: await mock.clearFaults(tenant.id).then(() => mock.faults(tenant.id)),
      afterClearRequests: await mock.clearRequests(tenant.id).then(() => mock.requests({}, tenant.id)),
      afterRemoveTesting: await mock
        .removeGroups(tenant.id, 'Testing')
        .then(() => mock.groups(tenant.id).then((groups) => groups.map((g) => g.provided_id))),
      afterReset: await mock.reset(tenant.id).then(() => mock.groups(tenant.id)),
      refusedRemoval: await refusal(mock.deleteTenant('default')),
      removed: await mock.deleteTenant(tenant.id),
      afterRemoval: await mock.tenants(),
    };
    expect(transcript.groups.map((g) => g.provided_id)).toEqual(['made', 's']);
    expect(transcript.token).toMatchObject({ provided_id: 'made', name: 'Made' });
    expect(transcript.elsewhere).toBeUndefined();
    expect(transcript.requests.map((e) => e.status)).toEqual([200, 400]);
    expect(transcript.heard).toEqual([200, 400]);
    expect(transcript.faults.map((f) => f.remaining)).toEqual([2]);
    expect(transcript.health).toMatchObject({ status: 'ready', store: store.kind });
    expect(transcript.afterRemoveTesting).toEqual(['made']);
    expect(transcript.taken).toBe('GROUP_EXISTS');
    expect(transcript.refusedFault).toBe('VALIDATION_FAILED');
    expect(transcript.refusedRemoval).toBe('TENANT_NOT_FOUND');
    expect(transcript.removed).toBeUndefined();
    const { health, ...common } = transcript;
    const memory = transcripts.get('memory');
    if (store.kind === 'memory') transcripts.set('memory', common);
    else if (memory !== undefined) expect(common).toEqual(memory);

    const typo = `${tenant.id}x`;
    const controls: Record<string, () => Promise<unknown>> = {
      reset: () => mock.reset(typo),
      groups: () => mock.groups(typo),
      removeGroups: () => mock.removeGroups(typo),
      token: () => mock.token(made.token, typo),
      requests: () => mock.requests({}, typo),
      clearRequests: () => mock.clearRequests(typo),
      droppedRequests: () => mock.droppedRequests(typo),
      injectFault: () => mock.injectFault({ status: 500 }, typo),
      faults: () => mock.faults(typo),
      clearFaults: () => mock.clearFaults(typo),
      watchRequests: () => mock.watchRequests(() => undefined, typo),
    };
    for (const [name, control] of Object.entries(controls))
      await expect(control(), name).rejects.toThrow(`${name}: no tenant "${typo}"`);
    await expect(
      mock.seedGroup({ environment: 'Customer', user_group_id: 'x', name: 'X' }, typo),
    ).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND', control: 'seedGroup' });
  });
});
