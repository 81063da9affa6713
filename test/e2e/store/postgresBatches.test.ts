import { setImmediate as turn } from 'node:timers/promises';
import pg from 'pg';
import { Pool } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cryptoIds } from '../../../src/domain/ids.js';
import type { Environment } from '../../../src/domain/model.js';
import { createMockServer, type MockServer } from '../../../src/index.js';
import { Database } from '../../../src/store/postgres/database.js';
import { ServiceRequests } from '../../../src/store/postgres/serviceRequests.js';
import {
  changeBatchStatement,
  createBatchStatement,
  createStatement,
  lockBatchStatement,
  readBatchStatement,
} from '../../../src/store/postgres/statements.js';
import { StoreUnavailableError } from '../../../src/store/store.js';
import { apiRequest, customerKey, send } from '../../support/http.js';
import { postgresAvailable, startTestCluster, type TestCluster } from '../../support/postgres.js';

interface Created {
  readonly new_user_group: boolean;
  readonly user_group: { readonly token: string; readonly team_id: number; readonly name: string };
}

/**
 * Get-or-creates that arrive together share one statement and one commit (group commit). A transaction of the test
 * holds an id uncommitted, so that the create of that id waits inside its statement: whatever is asked meanwhile
 * queues for the next batch, which the test then releases whole.
 */
describe.skipIf(!postgresAvailable())('the PostgreSQL store, requests sent together', () => {
  let cluster: TestCluster;
  let db: Database | undefined;
  let holder: pg.Client | undefined;
  const mocks: MockServer[] = [];
  beforeAll(async () => {
    cluster = await startTestCluster();
  }, 60_000);
  afterEach(async () => {
    vi.restoreAllMocks();
    await holder?.end().catch(() => undefined);
    holder = undefined;
    await db?.close().catch(() => undefined);
    db = undefined;
    for (const mock of mocks.splice(0)) await mock.close();
  });
  afterAll(() => cluster?.remove());

  let url = '';
  const open = async (): Promise<ServiceRequests> => {
    url = await cluster.createDatabase();
    db = await Database.open(url, { onWarning: () => undefined });
    return new ServiceRequests(db, cryptoIds);
  };
  const owner = (tenant = 'default', environment: Environment = 'Customer') => ({ tenant, environment });
  const create = (requests: ServiceRequests, id: string, tenant = 'default') =>
    requests.serve(
      'getOrCreateUserGroup',
      { name: `Group ${id}`, user_group_id: id },
      {
        owner: owner(tenant),
        claim: 'getOrCreateUserGroup',
        journal: (decision) => ({
          operationId: 'getOrCreateUserGroup',
          invalid: false,
          record: JSON.stringify(decision.body),
        }),
      },
    );
  /** An update or a rotation, journaled with the answer's body. */
  const change = (
    requests: ServiceRequests,
    operationId: 'updateUserGroup' | 'rotateUserGroupToken',
    body: Record<string, string>,
  ) =>
    requests.serve(operationId, body, {
      owner: owner(),
      claim: operationId,
      journal: (decision) => ({ operationId, invalid: false, record: JSON.stringify(decision.body) }),
    });
  /** The group an update or a rotation answered, or the code of its refusal (or of the fault claimed). */
  const outcome = (served: Awaited<ReturnType<typeof change>>): Created['user_group'] | string => {
    if (served.fault !== undefined) return `fault ${served.fault.status}`;
    return served.result.ok ? (served.result.value.body as Created).user_group : served.result.error.code;
  };
  /**
   * Holds the row of group `held` locked in a transaction of the test, and starts an update of it, which waits for
   * the lock: the changes asked after it gather into one batch.
   */
  const holdRow = async (requests: ServiceRequests, held: string) => {
    holder = new pg.Client({ connectionString: url });
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT FROM groups WHERE provided_id = $1 FOR UPDATE', [held]);
    const waiting = change(requests, 'updateUserGroup', { user_group_id: held, name: 'Held, renamed' });
    waiting.catch(() => undefined);
    return { waiting };
  };
  const createdOf = (served: Awaited<ReturnType<typeof create>>): Created => {
    if (served.fault !== undefined || !served.result.ok) throw new Error('expected a group');
    return served.result.value.body as Created;
  };
  /** Plans one 503 for the default tenant's next `operationId`, from outside the store. */
  const planFault = async (operationId: string): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        "INSERT INTO faults (tenant, operation_id, status, delay_ms, action, remaining) VALUES ('default', $1, 503, 0, NULL, 1)",
        [operationId],
      );
    } finally {
      await client.end();
    }
  };
  const count = async (text: string): Promise<number> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM (${text}) t`)).rows[0]?.n);
    } finally {
      await client.end();
    }
  };
  /**
   * Holds id `held` of the default tenant uncommitted, and starts a create of it: its statement waits for the
   * holder's transaction, so the creates asked after it gather into one batch. Returns the held create (in an
   * object: an async function returning the promise itself would wait for it).
   */
  const hold = async (requests: ServiceRequests, held: string) => {
    holder = new pg.Client({ connectionString: url });
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(
      `INSERT INTO groups (tenant, environment, provided_id, team_id, token, name) VALUES ('default', 'Customer', $1, -1, 'held-token', 'Held')`,
      [held],
    );
    const waiting = create(requests, held);
    waiting.catch(() => undefined);
    return { waiting };
  };
  /** Lets every request started so far reach the queue of its batch (none waits on I/O but the held statement). */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await turn();
  };
  /** How many times `text` was sent, prepared (a config object) or within a transaction (the text itself). */
  const sentOf = (sent: { mock: { calls: unknown[][] } }, text: string): number =>
    sent.mock.calls.filter(
      ([config]) => (typeof config === 'string' ? config : (config as { text?: string }).text) === text,
    ).length;

  it('stores the creates asked together in one statement, each with its journal entry, one group per id', async () => {
    const requests = await open();
    createdOf(await create(requests, 'first')); // draws the replica's first block of team ids
    const { waiting: held } = await hold(requests, 'held');
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const distinct = Array.from({ length: 20 }, (_, i) => create(requests, `g-${i}`));
    const same = Array.from({ length: 5 }, () => create(requests, 'twice'));
    await settle();
    await holder?.query('ROLLBACK');
    const made = (await Promise.all(distinct)).map(createdOf);
    const twice = (await Promise.all(same)).map(createdOf);
    expect(createdOf(await held).new_user_group).toBe(true);
    expect(sentOf(sent, createBatchStatement)).toBe(1);
    expect(made.every((body) => body.new_user_group)).toBe(true);
    expect(new Set(made.map((body) => body.user_group.team_id)).size).toBe(20);
    expect(twice.filter((body) => body.new_user_group)).toHaveLength(1);
    expect(new Set(twice.map((body) => body.user_group.token)).size).toBe(1);
    // 1 + 1 + 20 + 1 groups, each with the journal entry of the create that made it, and no other entry.
    expect(await count('SELECT FROM groups')).toBe(23);
    expect(await count("SELECT FROM journal WHERE operation_id = 'getOrCreateUserGroup'")).toBe(23);
    expect(await count("SELECT FROM journal WHERE record::jsonb->>'new_user_group' = 'false'")).toBe(0);
  });

  it("serves the others of a batch when one row's tenant is gone, and that one alone as removed", async () => {
    const requests = await open();
    createdOf(await create(requests, 'first'));
    const { waiting: held } = await hold(requests, 'held');
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const before = Array.from({ length: 5 }, (_, i) => create(requests, `a-${i}`));
    const gone = create(requests, 'orphan', 'removed-tenant');
    const after = Array.from({ length: 5 }, (_, i) => create(requests, `b-${i}`));
    await settle();
    await holder?.query('ROLLBACK');
    await held;
    const refused = await gone;
    expect(refused.fault === undefined && !refused.result.ok && refused.result.error.code).toBe(
      'AUTH_UNKNOWN_KEY',
    );
    expect(
      (await Promise.all([...before, ...after])).map(createdOf).map((body) => body.new_user_group),
    ).toEqual(Array(10).fill(true));
    // The batch was refused as a whole (nothing of it kept), then each of its rows went alone.
    expect(sentOf(sent, createBatchStatement)).toBe(1);
    expect(sentOf(sent, createStatement)).toBeGreaterThanOrEqual(11);
    expect(await count("SELECT FROM groups WHERE provided_id LIKE 'a-%' OR provided_id LIKE 'b-%'")).toBe(10);
    expect(await count("SELECT FROM journal WHERE tenant = 'removed-tenant'")).toBe(0);
  });

  it('fails every create waiting for its batch with STORE_UNAVAILABLE when PostgreSQL stops, keeping none', async () => {
    const requests = await open();
    createdOf(await create(requests, 'first'));
    const { waiting: held } = await hold(requests, 'held');
    const waiting = Array.from({ length: 10 }, (_, i) => create(requests, `w-${i}`));
    for (const request of waiting) request.catch(() => undefined);
    await settle();
    cluster.stopImmediately();
    try {
      const outcomes = await Promise.allSettled([held, ...waiting]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(11).fill('rejected'));
      for (const outcome of outcomes)
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    } finally {
      cluster.start();
    }
    expect(await count('SELECT FROM groups')).toBe(1);
    expect(await count('SELECT FROM journal')).toBe(1);
    // Back by itself: the next create is stored.
    expect(createdOf(await create(requests, 'w-0')).new_user_group).toBe(true);
  });

  it('reads a stored group first once most get-or-creates find theirs, and still makes a new one or claims a fault', async () => {
    const requests = await open();
    const made = createdOf(await create(requests, 'known'));
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    for (let i = 0; i < 10; i++)
      expect(createdOf(await create(requests, 'known')).new_user_group).toBe(false);
    // While most get-or-creates made their group, each tries the create statement first.
    expect(sentOf(sent, readBatchStatement)).toBe(0);
    for (let i = 0; i < 20; i++)
      expect(createdOf(await create(requests, 'known')).user_group.token).toBe(made.user_group.token);
    expect(sentOf(sent, readBatchStatement)).toBeGreaterThan(0);
    sent.mockClear();
    // A read that finds nothing goes on to create the group.
    expect(createdOf(await create(requests, 'new-one')).new_user_group).toBe(true);
    expect([sentOf(sent, readBatchStatement), sentOf(sent, createStatement)]).toEqual([1, 1]);
    // A fault planned for the operation is claimed by the create statement, not skipped by the read.
    await planFault('getOrCreateUserGroup');
    expect((await create(requests, 'known')).fault?.status).toBe(503);
    expect(createdOf(await create(requests, 'known')).new_user_group).toBe(false);
    expect(await count('SELECT FROM faults')).toBe(0);
  });

  it('stores the updates and rotations asked together in one transaction, in the order asked, each with its entry', async () => {
    const requests = await open();
    const made: Created[] = [];
    for (const id of ['held', 'u-0', 'u-1', 'u-2', 'u-3', 'r', 'both'])
      made.push(createdOf(await create(requests, id)));
    const [, , , , , rotated, both] = made as Created[];
    const { waiting: held } = await holdRow(requests, 'held');
    await settle();
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const renames = [0, 1, 2, 3].map((i) =>
      change(requests, 'updateUserGroup', { user_group_id: `u-${i}`, name: `Renamed ${i}` }),
    );
    // Two rotations of one token: the first asked wins, the second finds the token gone.
    const twice = [0, 1].map(() =>
      change(requests, 'rotateUserGroupToken', { current_token: rotated?.user_group.token as string }),
    );
    // An update, then a rotation of the same group: the rotation answers the updated name.
    const renamed = change(requests, 'updateUserGroup', { user_group_id: 'both', name: 'Both' });
    const then = change(requests, 'rotateUserGroupToken', {
      current_token: both?.user_group.token as string,
    });
    const missing = change(requests, 'updateUserGroup', { user_group_id: 'nobody', name: 'Nobody' });
    await settle();
    await holder?.query('ROLLBACK');
    expect(outcome(await held)).toMatchObject({ name: 'Held, renamed' });
    const [won, lost] = (await Promise.all(twice)).map(outcome);
    expect(won).toMatchObject({ name: 'Group r' });
    expect(lost).toBe('TOKEN_NOT_FOUND');
    expect(outcome(await renamed)).toMatchObject({ name: 'Both' });
    expect(outcome(await then)).toMatchObject({ name: 'Both' });
    expect(outcome(await missing)).toBe('GROUP_NOT_FOUND');
    expect(sentOf(sent, lockBatchStatement)).toBe(1);
    expect(sentOf(sent, changeBatchStatement)).toBe(1);
    // The held update's commit, then the batch's one for all eight.
    expect(sentOf(sent, 'COMMIT')).toBe(2);
    expect(
      (await Promise.all(renames)).map((served) => (outcome(served) as Created['user_group']).name),
    ).toEqual(['Renamed 0', 'Renamed 1', 'Renamed 2', 'Renamed 3']);
    // What was answered is what is stored, each change with its entry (a refusal is journaled by the caller).
    expect(
      await count("SELECT FROM groups WHERE name LIKE 'Renamed %' OR name IN ('Both', 'Held, renamed')"),
    ).toBe(6);
    expect(await count(`SELECT FROM groups WHERE token = '${(won as Created['user_group']).token}'`)).toBe(1);
    expect(await count("SELECT FROM journal WHERE operation_id = 'updateUserGroup'")).toBe(6);
    expect(await count('SELECT FROM journal WHERE retired_token IS NOT NULL')).toBe(2);
  });

  it('sends a change of a batch a fault is planned for alone, which claims it', async () => {
    const requests = await open();
    for (const id of ['held', 'a', 'b']) createdOf(await create(requests, id));
    const { waiting: held } = await holdRow(requests, 'held');
    await settle();
    // Planned once the held update waits for its row: the fault is for the first change of the batch to claim it.
    await planFault('updateUserGroup');
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const batch = ['a', 'b'].map((id) =>
      change(requests, 'updateUserGroup', { user_group_id: id, name: `New ${id}` }),
    );
    await settle();
    await holder?.query('ROLLBACK');
    expect(outcome(await held)).toMatchObject({ name: 'Held, renamed' });
    // Both were asked while a fault was due: the batch changed nothing and each went alone; one claimed its one use.
    const outcomes = (await Promise.all(batch)).map(outcome);
    expect(outcomes.filter((one) => one === 'fault 503')).toHaveLength(1);
    expect(outcomes.filter((one) => typeof one === 'object' && one.name.startsWith('New '))).toHaveLength(1);
    expect(sentOf(sent, lockBatchStatement)).toBe(1);
    expect(sentOf(sent, changeBatchStatement)).toBe(0);
    expect(await count('SELECT FROM faults')).toBe(0);
    expect(await count("SELECT FROM groups WHERE name LIKE 'New %'")).toBe(1);
  });

  it('answers concurrent creates of one id across two replicas with one group, one of them new', async () => {
    const database = await cluster.createDatabase();
    const replicas = [await createMockServer({ db: database }), await createMockServer({ db: database })];
    mocks.push(...replicas);
    const pools = replicas.map((replica) => new Pool(replica.url, { connections: 25 }));
    try {
      const one = apiRequest(
        'getOrCreateUserGroup',
        { name: 'Shared', user_group_id: 'shared' },
        customerKey,
      );
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => send(pools[i % 2] as Pool, one)),
      );
      const bodies = answers.map((answer) => answer.body as Created);
      expect(answers.map((answer) => answer.status)).toEqual(Array(100).fill(200));
      expect(bodies.filter((body) => body.new_user_group)).toHaveLength(1);
      expect(new Set(bodies.map((body) => body.user_group.token)).size).toBe(1);
      // Distinct ids at once: each made once, with team ids unique across the replicas.
      const distinct = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          send(
            pools[i % 2] as Pool,
            apiRequest('getOrCreateUserGroup', { name: `G${i}`, user_group_id: `g-${i}` }, customerKey),
          ),
        ),
      );
      const made = distinct.map((answer) => answer.body as Created);
      expect(made.every((body) => body.new_user_group)).toBe(true);
      expect(new Set(made.map((body) => body.user_group.team_id)).size).toBe(100);
    } finally {
      for (const pool of pools) await pool.close();
    }
  });
});
