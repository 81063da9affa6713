import pg from 'pg';
import { Pool } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/index.js';
import { keysStatement, unflushedJournalStatement } from '../../../src/store/postgres/statements.js';
import { admin } from '../../support/admin.js';
import {
  type Answer,
  apiRequest,
  call,
  customerKey,
  errorCodeOf,
  jsonHeaders,
  send,
} from '../../support/http.js';
import { postgresAvailable, startTestCluster, type TestCluster } from '../../support/postgres.js';

/**
 * What each service call costs PostgreSQL, counted as the statements the driver sends: a create is one statement
 * (fault claim, group and journal entry in one commit), and a fault planned for any operation is claimed in the
 * statement that would otherwise have done the operation.
 */
describe.skipIf(!postgresAvailable())('the PostgreSQL store, statement by statement', () => {
  let cluster: TestCluster;
  let mock: MockServer | undefined;
  beforeAll(async () => {
    cluster = await startTestCluster();
  }, 60_000);
  afterEach(async () => {
    vi.restoreAllMocks();
    await mock?.close();
    mock = undefined;
  });
  afterAll(() => cluster?.remove());

  let database = '';
  const start = async (): Promise<MockServer> => {
    database = await cluster.createDatabase();
    mock = await createMockServer({ db: database });
    return mock;
  };
  /** The statements of `text` the spied driver was sent (each goes as a named, prepared statement). */
  const sentOf = (sent: { mock: { calls: unknown[][] } }, text: string): number =>
    sent.mock.calls.filter(([config]) => (config as { text?: string }).text === text).length;
  const api = (server: MockServer, method: string, body: unknown): Promise<Answer> =>
    call(server.url, method, '/api/user', { body, headers: jsonHeaders(customerKey) });

  it('makes a new group and its journal entry in one statement, and answers a known id in two', async () => {
    const server = await start();
    // The first create also draws a block of team ids from the sequence.
    expect((await api(server, 'GET', { name: 'First', user_group_id: 'first' })).status).toBe(200);
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const made: Answer[] = [];
    for (let i = 0; i < 10; i++)
      made.push(await api(server, 'GET', { name: `G${i}`, user_group_id: `g-${i}` }));
    expect(made.map((answer) => answer.body.new_user_group)).toEqual(Array(10).fill(true));
    expect(sent).toHaveBeenCalledTimes(10);
    sent.mockClear();
    for (let i = 0; i < 10; i++)
      expect((await api(server, 'GET', { name: `G${i}`, user_group_id: `g-${i}` })).body.new_user_group).toBe(
        false,
      );
    expect(sent).toHaveBeenCalledTimes(20);
    sent.mockRestore();
    const journal = (await admin(server.url, 'GET', '/__admin/requests?operationId=getOrCreateUserGroup'))
      .body as { status: number; responseBody: unknown }[];
    expect(journal).toHaveLength(21);
    expect(journal.slice(1, 11).map((entry) => entry.responseBody)).toEqual(
      made.map((answer) => answer.body),
    );
    expect(journal.every((entry) => entry.status === 200)).toBe(true);
  });

  it('looks an unknown key up once, in one statement of index look-ups, then remembers it is unknown', async () => {
    const url = await cluster.createDatabase();
    mock = await createMockServer({ db: url });
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const wrong = { body: { name: 'A', user_group_id: 'a' }, headers: jsonHeaders('f'.repeat(64)) };
    for (let i = 0; i < 50; i++)
      expect((await call(mock.url, 'GET', '/api/user', wrong)).body.error.code).toBe('AUTH_UNKNOWN_KEY');
    // 50 requests journaled, one look-up: without the memory of misses, each request asked again.
    expect(sentOf(sent, keysStatement)).toBe(1);
    sent.mockRestore();
    // No journal scan: with sequential scans priced out, the plan still finds an index for every table.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off');
      await client.query(`PREPARE key_lookup(text[]) AS ${keysStatement}`);
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN EXECUTE key_lookup(ARRAY['x', 'y'])",
      );
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(plan).toContain('journal_retired_token');
      expect(plan).not.toMatch(/Seq Scan on (journal|groups|tenants)/);
    } finally {
      await client.end();
    }
  });

  it('looks up the wrong keys sent at once and journals their refusals in a statement per batch, one batch at a time', async () => {
    const url = await cluster.createDatabase();
    mock = await createMockServer({ db: url });
    const server = mock;
    const token = (await api(server, 'GET', { name: 'Made', user_group_id: 'made' })).body.user_group.token;
    // A tenant made through another replica: its key is news to this one.
    const other = await createMockServer({ db: url });
    const tenantKey = (await admin(other.url, 'POST', '/__admin/tenants')).body.api_keys.Customer as string;
    await other.close();
    const pool = new Pool(server.url, { connections: 50 });
    let sent: ReturnType<typeof vi.spyOn>;
    try {
      // The 50 connections opened first, so that the 200 requests come at once.
      const warm = apiRequest('getOrCreateUserGroup', { name: 'Made', user_group_id: 'made' });
      await Promise.all(Array.from({ length: 50 }, () => send(pool, warm)));
      sent = vi.spyOn(pg.Client.prototype, 'query');
      const keys = [tenantKey, token, ...Array.from({ length: 198 }, (_, i) => `never-issued-${i}`)];
      const answers = await Promise.all(
        keys.map((key) =>
          send(pool, apiRequest('getOrCreateUserGroup', { name: 'A', user_group_id: 'a' }, key)),
        ),
      );
      expect(answers.map(errorCodeOf)).toEqual([
        undefined,
        'AUTH_GROUP_TOKEN_AS_KEY',
        ...Array(198).fill('AUTH_UNKNOWN_KEY'),
      ]);
    } finally {
      await pool.close();
    }
    // One statement per request would be 200 of each; a batch takes every request that came while one ran.
    expect(sentOf(sent, keysStatement)).toBeLessThan(50);
    expect(sentOf(sent, unflushedJournalStatement)).toBeLessThan(100);
    sent.mockRestore();
    const journal = (await admin(server.url, 'GET', '/__admin/requests?limit=500')).body as {
      status: number;
    }[];
    expect(journal.filter((entry) => entry.status === 401)).toHaveLength(199);
  });

  it("commits the entries of a wrong key's refusal and of a tenant's read without waiting for the disk", async () => {
    const server = await start();
    expect((await api(server, 'GET', { name: 'Made', user_group_id: 'made' })).status).toBe(200);
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const refused = await call(server.url, 'GET', '/api/user', {
      body: { name: 'Made', user_group_id: 'made' },
      headers: jsonHeaders('never-issued'),
    });
    expect(errorCodeOf(refused)).toBe('AUTH_UNKNOWN_KEY');
    expect((await api(server, 'GET', { name: 'Made', user_group_id: 'made' })).body.new_user_group).toBe(
      false,
    );
    // Neither request changed anything: both entries are written apart from a change, unflushed.
    expect(sentOf(sent, unflushedJournalStatement)).toBe(2);
    sent.mockRestore();
    // Committed, so listed at once (through any replica), whether flushed yet or not.
    const journal = (await admin(server.url, 'GET', '/__admin/requests')).body as { status: number }[];
    expect(journal.map((entry) => entry.status)).toEqual([200, 401, 200]);
    // The statement turns synchronous_commit off for its own transaction only.
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    const setting = async () => (await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit;
    try {
      await client.query('BEGIN');
      const line = { tenant: 'default', operationId: null, invalid: true, record: '{}' };
      await client.query(unflushedJournalStatement, [JSON.stringify([line])]);
      expect(await setting()).toBe('off');
      await client.query('ROLLBACK');
      expect(await setting()).toBe('on');
    } finally {
      await client.end();
    }
  });

  it('gathers the wrong keys that come within a few milliseconds into one look-up', async () => {
    const server = await start();
    const pool = new Pool(server.url, { connections: 20 });
    try {
      const warm = apiRequest('getOrCreateUserGroup', { name: 'Made', user_group_id: 'made' });
      await Promise.all(Array.from({ length: 20 }, () => send(pool, warm)));
      const sent = vi.spyOn(pg.Client.prototype, 'query');
      // 20 wrong keys, one every 2 ms: each alone would find no look-up running and send its own.
      const answers: Promise<Answer>[] = [];
      for (let i = 0; i < 20; i++) {
        answers.push(
          send(pool, apiRequest('getOrCreateUserGroup', { name: 'A', user_group_id: 'a' }, `wrong-${i}`)),
        );
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect((await Promise.all(answers)).map(errorCodeOf)).toEqual(Array(20).fill('AUTH_UNKNOWN_KEY'));
      expect(sentOf(sent, keysStatement)).toBeLessThanOrEqual(12);
    } finally {
      await pool.close();
    }
  });

  it('hands out team ids in order through one replica, and gives back the one drawn for a known id', async () => {
    const server = await start();
    const teamIds = [];
    for (const id of ['a', 'a', 'b', 'a', 'c'])
      teamIds.push((await api(server, 'GET', { name: id, user_group_id: id })).body.user_group.team_id);
    expect(teamIds).toEqual([1, 1, 2, 1, 3]);
  });

  it('claims a delay-only fault in the create statement, then makes the group once after the delay', async () => {
    const server = await start();
    await admin(server.url, 'POST', '/__admin/faults', {
      body: { operationId: 'getOrCreateUserGroup', delay_ms: 150 },
    });
    const made = await api(server, 'GET', { name: 'Slow', user_group_id: 'slow' });
    expect(made.body.new_user_group).toBe(true);
    expect((await admin(server.url, 'GET', '/__admin/faults')).body).toEqual([]);
    expect((await admin(server.url, 'GET', '/__admin/groups')).body).toHaveLength(1);
    expect((await admin(server.url, 'GET', '/__admin/requests')).body).toHaveLength(1);
  });

  it('strikes a fault planned for an update or a rotation before changing anything, then serves the next call', async () => {
    const server = await start();
    const made = await api(server, 'GET', { name: 'Before', user_group_id: 'g' });
    const token = made.body.user_group.token as string;
    for (const operationId of ['updateUserGroup', 'rotateUserGroupToken'])
      await admin(server.url, 'POST', '/__admin/faults', { body: { operationId, status: 503 } });
    const update = { name: 'After', user_group_id: 'g' };
    const rotation = { current_token: token };
    expect((await api(server, 'PUT', update)).status).toBe(503);
    expect((await api(server, 'POST', rotation)).status).toBe(503);
    expect((await admin(server.url, 'GET', '/__admin/groups')).body).toMatchObject([
      { name: 'Before', token },
    ]);
    expect((await api(server, 'PUT', update)).body.user_group.name).toBe('After');
    const rotated = await api(server, 'POST', rotation);
    expect(rotated.body.user_group.token).not.toBe(token);
    const statuses = (await admin(server.url, 'GET', '/__admin/requests')).body.map(
      (entry: { status: number }) => entry.status,
    );
    expect(statuses).toEqual([200, 503, 503, 200, 200]);
  });

  it('answers an embed preview for an environment or a tenant that does not exist without looking the token up', async () => {
    const server = await start();
    const token = (await api(server, 'GET', { name: 'Shown', user_group_id: 'shown' })).body.user_group
      .token as string;
    const preview = async (query: Record<string, string>): Promise<number> =>
      (await fetch(`${server.url}/embed/sales-overview?${new URLSearchParams({ token, ...query })}`)).status;
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    expect(await preview({ environment: 'Staging' })).toBe(400);
    expect(sent).toHaveBeenCalledTimes(0);
    expect(await preview({ tenant: 'nobody' })).toBe(404);
    expect(sent).toHaveBeenCalledTimes(1);
    sent.mockClear();
    expect(await preview({})).toBe(200);
    expect(sent).toHaveBeenCalledTimes(2);
  });

  it('journals the headers of a success and of a refusal with the key hidden, in the table as in the listing', async () => {
    const server = await start();
    await api(server, 'GET', { name: 'A', user_group_id: 'a' });
    const bearer = { authorization: `Bearer ${customerKey}`, 'content-type': 'application/json' };
    await call(server.url, 'GET', '/api/user', { headers: bearer, body: { name: 'A', user_group_id: 'a' } });
    const journal = (await admin(server.url, 'GET', '/__admin/requests')).body as {
      status: number;
      requestBody: unknown;
      requestHeaders: { name: string; value: string }[];
    }[];
    expect(journal.map((entry) => [entry.status, entry.requestBody])).toEqual([
      [200, { name: 'A', user_group_id: 'a' }],
      [401, { name: 'A', user_group_id: 'a' }],
    ]);
    expect(
      journal.map((entry) => entry.requestHeaders.find((h) => h.name === 'authorization')?.value),
    ).toEqual([
      'Token ‹16 characters: the Customer key of tenant "default"›',
      'Bearer ‹16 characters: the Customer key of tenant "default"›',
    ]);
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      const { rows } = await client.query<{ record: string }>('SELECT record FROM journal ORDER BY id');
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(String(row.record)).not.toContain(customerKey);
    } finally {
      await client.end();
    }
  });
});
