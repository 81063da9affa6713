import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../../support/admin.js';
import { type Answer, customerKey, testingKey, useMocks } from '../../support/http.js';
import {
  postgresAvailable,
  startTestCluster,
  storeUnavailableProblems,
  type TestCluster,
} from '../../support/postgres.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The store's warnings, kept for the test to assert (a lost connection is expected here, not printed). */
const warningsKept = (): { warnings: string[]; onWarning: (message: string) => void } => {
  const warnings: string[] = [];
  return { warnings, onWarning: (message) => warnings.push(message) };
};
const connectionLost =
  /^user-group-mock: a PostgreSQL connection was lost \(.+\); a new one is made when needed$/;

/**
 * The service while PostgreSQL is stopped (`pg_ctl stop -m immediate`) and once it is back: every call is refused
 * with the STORE_UNAVAILABLE envelope, whatever key and operation, and nothing decided before the store failed (a
 * new token, a team id, a journal entry) reaches the client or the database.
 */
describe.skipIf(!postgresAvailable())('the PostgreSQL store during an outage', () => {
  let cluster: TestCluster;
  const mocks = useMocks();
  beforeAll(async () => {
    cluster = await startTestCluster();
  }, 60_000);
  afterAll(() => cluster?.remove());

  it('answers every service call STORE_UNAVAILABLE while PostgreSQL is down, then the stored state unchanged', async () => {
    const { warnings, onWarning } = warningsKept();
    const mock = await mocks({ db: await cluster.createDatabase(), onWarning });
    const tenant = (await admin(mock.url, 'POST', '/__admin/tenants')).body as {
      api_keys: { Customer: string; Testing: string };
    };
    const keys = {
      'the default Customer key': customerKey,
      'the default Testing key': testingKey,
      "a tenant's Customer key": tenant.api_keys.Customer,
    };
    // Each key's known group; the first create also draws a block of team ids, so a create needs no round trip
    // to the database before its one statement.
    const known = new Map<string, Answer>();
    for (const [who, key] of Object.entries(keys)) {
      const made = await mock.api('GET', { name: 'Known', user_group_id: 'known' }, key);
      expect(made.body.new_user_group).toBe(true);
      known.set(who, made);
    }

    cluster.stopImmediately();
    try {
      const problems: Record<string, string[]> = {};
      for (const [who, key] of Object.entries(keys)) {
        const token = (known.get(who) as Answer).body.user_group.token as string;
        const calls: [string, string, unknown][] = [
          ['GET of a known id', 'GET', { name: 'Known', user_group_id: 'known' }],
          ['GET of a new id', 'GET', { name: 'New', user_group_id: 'new' }],
          ['GET of a new id again', 'GET', { name: 'New', user_group_id: 'new' }],
          ['PUT', 'PUT', { user_group_id: 'known', name: 'Renamed' }],
          ['POST', 'POST', { current_token: token }],
        ];
        for (const [what, method, body] of calls) {
          const answer = await mock.api(method, body, key);
          const wrong = storeUnavailableProblems(answer);
          if (wrong.length > 0) problems[`${what} with ${who}`] = wrong;
        }
      }
      expect(problems).toEqual({});
    } finally {
      cluster.start();
    }

    // Back: the pool makes new connections by itself (bounded wait, no restart of the mock).
    for (let i = 0; i < 50; i++) {
      if ((await admin(mock.url, 'GET', '/__admin/health')).body.database === 'up') break;
      await sleep(100);
    }
    for (const [who, key] of Object.entries(keys)) {
      const before = known.get(who) as Answer;
      const again = await mock.api('GET', { name: 'Known', user_group_id: 'known' }, key);
      expect(again.status, who).toBe(200);
      expect(again.body, who).toEqual({ ...before.body, new_user_group: false });
      const made = await mock.api('GET', { name: 'New', user_group_id: 'new' }, key);
      expect(made.body.new_user_group, who).toBe(true);
      const repeated = await mock.api('GET', { name: 'New', user_group_id: 'new' }, key);
      expect(repeated.body, who).toEqual({ ...made.body, new_user_group: false });
    }
    const groups = (await admin(mock.url, 'GET', '/__admin/groups')).body as {
      provided_id: string;
      team_id: number;
    }[];
    expect(groups.map((g) => g.provided_id).sort()).toEqual(['known', 'known', 'new', 'new']);
    // No team id was spent on the refused creates: the new groups take the next ones (3 went to the tenant).
    const teamIds = groups.map((g) => g.team_id).sort((a, b) => a - b);
    expect(teamIds).toEqual([1, 2, 4, 5]);
    for (const warning of warnings) expect(warning).toMatch(connectionLost);
  });

  it('keeps serving when PostgreSQL stops while updates and rotations are inside their transactions', async () => {
    const { warnings, onWarning } = warningsKept();
    const mock = await mocks({ db: await cluster.createDatabase(), onWarning });
    const ids = Array.from({ length: 8 }, (_, i) => `busy-${i}`);
    const tokens = new Map<string, string>();
    for (const id of ids)
      tokens.set(id, (await mock.api('GET', { name: id, user_group_id: id })).body.user_group.token);
    // Half the loops rename, half rotate: each a transaction of several statements, so that connections are
    // checked out, between two statements, when the server goes. Bounded in count and in time.
    let stop = false;
    const began = Date.now();
    const seen: Array<[method: string, status: number]> = [];
    const loops = ids.map(async (id, n) => {
      const method = n % 2 === 0 ? 'PUT' : 'POST';
      for (let i = 0; i < 5_000 && !stop && Date.now() - began < 30_000; i++) {
        const body =
          method === 'PUT' ? { user_group_id: id, name: `${id} ${i}` } : { current_token: tokens.get(id) };
        const answer = await mock.api(method, body);
        if (method === 'POST' && answer.status === 200) tokens.set(id, answer.body.user_group.token);
        seen.push([method, answer.status]);
      }
    });
    while (seen.length < 200 && Date.now() - began < 20_000) await sleep(10);
    cluster.stopImmediately();
    try {
      await sleep(500);
      expect((await admin(mock.url, 'GET', '/__admin/health')).body).toMatchObject({ database: 'down' });
    } finally {
      cluster.start();
    }
    let renamed = 0;
    for (let i = 0; i < 100 && renamed !== 200; i++) {
      renamed = (await mock.api('PUT', { user_group_id: 'busy-0', name: 'After' })).status;
      if (renamed !== 200) await sleep(100);
    }
    stop = true;
    await Promise.all(loops);
    expect(renamed).toBe(200);
    expect(seen.filter(([, status]) => status === 503).length).toBeGreaterThan(0);
    // A rotation whose commit reached the database as the connection broke answers 503, and its old token is gone.
    expect(
      seen.filter(
        ([method, status]) => ![200, 503].includes(status) && !(method === 'POST' && status === 404),
      ),
    ).toEqual([]);
    for (const warning of warnings) expect(warning).toMatch(connectionLost);
  });

  it('answers STORE_UNAVAILABLE, quoting PostgreSQL, when its database is dropped while serving', async () => {
    const url = await cluster.createDatabase();
    const { warnings, onWarning } = warningsKept();
    const mock = await mocks({ db: url, onWarning });
    const made = await mock.api('GET', { name: 'Known', user_group_id: 'known' });
    expect(made.status).toBe(200);
    await cluster.asSuperuser(`DROP DATABASE ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
    for (const [method, body] of [
      ['GET', { name: 'Known', user_group_id: 'known' }],
      ['GET', { name: 'New', user_group_id: 'new' }],
      ['POST', { current_token: made.body.user_group.token }],
    ] as const) {
      const answer = await mock.api(method, body);
      expect(storeUnavailableProblems(answer), method).toEqual([]);
      expect(answer.body.error.message).toMatch(
        /^PostgreSQL is unavailable \(database "\w+" does not exist\)/,
      );
    }
    // The admin API answers a store out of reach as the service does, Retry-After included.
    for (const [method, path, body] of [
      ['GET', '/__admin/groups', undefined],
      ['POST', '/__admin/groups', { environment: 'Customer', user_group_id: 'seeded', name: 'Seeded' }],
    ] as const) {
      const answer = await admin(mock.url, method, path, { body });
      expect(storeUnavailableProblems(answer), `${method} ${path}`).toEqual([]);
    }
    expect((await admin(mock.url, 'GET', '/__admin/health')).body).toMatchObject({ database: 'down' });
    expect(warnings.length).toBeGreaterThan(0);
    for (const warning of warnings) expect(warning).toMatch(connectionLost);
  });
});
