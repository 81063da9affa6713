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

  it('keeps a migration that fails half way out of the database entirely: neither its tables nor its version', async () => {
    const url = await cluster.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migrate(client, 1);
      // Migration 2 creates `journal`, then `faults`: a `faults` already there fails it after its first table.
      await client.query('CREATE TABLE faults (id integer)');
      await expect(migrate(client, 2)).rejects.toThrow(/"faults" already exists/);
      const versions = await client.query('SELECT version FROM schema_version ORDER BY version');
      expect(versions.rows.map((r) => r.version)).toEqual([1]);
      const journal = await client.query("SELECT to_regclass('journal') AS found");
      expect(journal.rows[0].found).toBeNull();
    } finally {
      await client.end();
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

  it("refuses an application's database holding tables of the schema's names with exit code 4, changing nothing", async () => {
    const url = await cluster.createDatabase();
    await query(url, 'CREATE TABLE tenants (id serial PRIMARY KEY, name text)');
    await query(url, 'CREATE TABLE groups (id serial PRIMARY KEY)');
    const cli = runCli(['serve', '--port', '0', '--db', url]);
    expect(await cli.exited).toBe(4);
    const database = new URL(url).pathname.slice(1);
    expect(cli.stderr()).toContain(
      `user-group-mock: the database "${database}" already holds tenants, groups, which are not user-group-mock's (it has no schema_version table of the mock's): point --db at a database of the mock's own`,
    );
    const tables = await query(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
    expect(tables.rows.map((r) => r.tablename)).toEqual(['groups', 'tenants']);
    // In a schema of its own, beside the application's tables, it starts.
    await query(url, 'CREATE SCHEMA ugm');
    const mock = await createMockServer({ db: `${url}?options=-c%20search_path%3Dugm` });
    await mock.close();
    const ours = await query(url, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'ugm'");
    expect(ours.rows[0].n).toBeGreaterThan(3);
  });

  it("refuses a database whose schema_version is another tool's (Flyway's), with exit code 4, changing nothing", async () => {
    const url = await cluster.createDatabase();
    await query(
      url,
      'CREATE TABLE schema_version (installed_rank integer PRIMARY KEY, version varchar(50), description varchar(200))',
    );
    const cli = runCli(['serve', '--port', '0', '--db', url]);
    expect(await cli.exited).toBe(4);
    expect(cli.stderr()).toContain(
      "already holds schema_version, which is not user-group-mock's (it has no schema_version table of the mock's)",
    );
    const tables = await query(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    expect(tables.rows.map((r) => r.tablename)).toEqual(['schema_version']);
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

  it('refuses a database that does not exist with exit code 3, quoting PostgreSQL and how to create it', async () => {
    const cli = runCli(['serve', '--port', '0', '--db', cluster.url('nosuchdb')]);
    expect(await cli.exited).toBe(3);
    expect(cli.stderr()).toBe(
      `user-group-mock: PostgreSQL at 127.0.0.1:${cluster.port} refused the connection: database "nosuchdb" does not exist. Create it (createdb -h 127.0.0.1 -p ${cluster.port} -U postgres nosuchdb) or correct the database name in --db\n`,
    );
  });

  it('names the Unix socket folder and the port of a URL that gives them as parameters, in a refusal and its fix', async () => {
    const db = `postgres:///nosuchdb?host=${encodeURIComponent(cluster.dir)}&port=${cluster.port}&user=postgres`;
    const cli = runCli(['serve', '--port', '0', '--db', db]);
    expect(await cli.exited).toBe(3);
    expect(cli.stderr()).toBe(
      `user-group-mock: PostgreSQL at ${cluster.dir}:${cluster.port} refused the connection: database "nosuchdb" does not exist. Create it (createdb -h ${cluster.dir} -p ${cluster.port} -U postgres nosuchdb) or correct the database name in --db\n`,
    );
  });

  it('refuses a role that does not exist with exit code 3, quoting PostgreSQL and naming the user in --db', async () => {
    const url = `postgres://nobody@127.0.0.1:${cluster.port}/postgres`;
    const cli = runCli(['serve', '--port', '0', '--db', url]);
    expect(await cli.exited).toBe(3);
    expect(cli.stderr()).toBe(
      `user-group-mock: PostgreSQL at 127.0.0.1:${cluster.port} refused the connection: role "nobody" does not exist. Check the user in --db (postgres://USER@127.0.0.1:${cluster.port}/…), or create the role (createuser -h 127.0.0.1 -p ${cluster.port} -U postgres nobody)\n`,
    );
  });

  it('refuses a wrong or missing password with exit code 3, naming user and password in --db, never the password', async () => {
    await cluster.createRoleWithPassword('guarded', 'right-one');
    const at = `127.0.0.1:${cluster.port}`;
    const advice = `Check the user and password in --db (postgres://guarded:PASSWORD@${at}/postgres; percent-encode special characters)\n`;
    const wrong = runCli(['serve', '--port', '0', '--db', `postgres://guarded:wrong-one@${at}/postgres`]);
    expect(await wrong.exited).toBe(3);
    expect(wrong.stderr()).toBe(
      `user-group-mock: PostgreSQL at ${at} refused the connection: password authentication failed for user "guarded". ${advice}`,
    );
    const none = runCli(['serve', '--port', '0', '--db', `postgres://guarded@${at}/postgres`], {
      PGPASSWORD: '',
    });
    expect(await none.exited).toBe(3);
    expect(none.stderr()).toMatch(
      new RegExp(`^user-group-mock: PostgreSQL at ${at} refused the connection: .*password.*\\. `),
    );
    expect(none.stderr()).toContain(advice);
    const rightOne = await createMockServer({ db: `postgres://guarded:right-one@${at}/postgres` }).catch(
      (error: Error) => error,
    );
    // The right password gets as far as the schema: the role may not create tables in a database it does not own.
    expect(rightOne).toBeInstanceOf(Error);
    expect((rightOne as Error).message).toBe(
      `user-group-mock: PostgreSQL at ${at} refused the connection: permission denied for schema public. The user must be able to create tables in the database: GRANT CREATE ON SCHEMA public TO guarded, or use the database's owner in --db`,
    );
  });
});
