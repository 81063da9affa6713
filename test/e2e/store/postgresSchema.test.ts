import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer } from '../../../src/index.js';
import { latestVersion } from '../../../src/store/postgres/migrations.js';
import { migrate } from '../../../src/store/postgres/schema.js';
import { runCli } from '../../support/cli.js';
import { call, jsonHeaders } from '../../support/http.js';
import { postgresAvailable, startTestCluster, type TestCluster } from '../../support/postgres.js';

async function query(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe.skipIf(!postgresAvailable())('the PostgreSQL schema at start', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster();
  }, 60_000);
  afterAll(() => cluster?.remove());

  it('upgrades a database at schema version 1 to the latest, keeping its groups', async () => {
    const url = await cluster.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await migrate(client, 1);
    await client.query("INSERT INTO groups VALUES ('default', 'Customer', 'old', 7, $1, 'Old', NULL, NULL)", [
      'b'.repeat(64),
    ]);
    await client.end();
    const mock = await createMockServer({ db: url });
    try {
      const versions = await query(url, 'SELECT version FROM schema_version ORDER BY version');
      expect(versions.rows.map((r) => r.version)).toEqual(
        Array.from({ length: latestVersion }, (_, i) => i + 1),
      );
      const old = await call(mock.url, 'GET', '/api/user', { body: { name: 'Old', user_group_id: 'old' } });
      expect(old.body).toMatchObject({
        new_user_group: false,
        user_group: { team_id: 7, token: 'b'.repeat(64) },
      });
      const journal = await call(mock.url, 'GET', '/__admin/requests', { headers: {} });
      expect(journal.body).toHaveLength(1);
    } finally {
      await mock.close();
    }
  });

  it('migrates once when two replicas start on a fresh database at the same moment', async () => {
    const url = await cluster.createDatabase();
    const mocks = await Promise.all([createMockServer({ db: url }), createMockServer({ db: url })]);
    try {
      const versions = await query(url, 'SELECT version FROM schema_version ORDER BY version');
      expect(versions.rows.map((r) => r.version)).toEqual(
        Array.from({ length: latestVersion }, (_, i) => i + 1),
      );
      const made = await call(mocks[0].url, 'GET', '/api/user', {
        body: { name: 'A', user_group_id: 'a' },
        headers: jsonHeaders(),
      });
      expect(made.body.new_user_group).toBe(true);
    } finally {
      for (const mock of mocks) await mock.close();
    }
  });

  it('refuses a schema newer than it knows with a clear message and exit code 4, changing nothing', async () => {
    const url = await cluster.createDatabase();
    await query(url, 'CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at timestamptz)');
    await query(url, 'INSERT INTO schema_version VALUES ($1, now())', [latestVersion + 1]);
    const cli = runCli(['serve', '--port', '0', '--db', url]);
    expect(await cli.exited).toBe(4);
    expect(cli.stderr()).toContain(
      `user-group-mock: the database's schema is version ${latestVersion + 1}, newer than the ${latestVersion} this version of user-group-mock knows`,
    );
    const tables = await query(url, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
    expect(tables.rows[0].n).toBe(1);
  });

  it('refuses to start when PostgreSQL cannot be reached, naming host and port, with exit code 3', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const cli = runCli(['serve', '--port', '0', '--db', `postgres://postgres@127.0.0.1:${port}/nothing`]);
    expect(await cli.exited).toBe(3);
    expect(cli.stderr()).toMatch(
      new RegExp(
        `^user-group-mock: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port} \\(.+\\); start it or check --db\\n$`,
      ),
    );
  });
});
