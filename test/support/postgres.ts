import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Answer } from './http.js';
import { freePort } from './ports.js';

/**
 * A throwaway PostgreSQL cluster for the tests: `initdb` in a temp dir as the `postgres` user, `pg_ctl start` on a
 * free port of 127.0.0.1, then stopped and removed. One cluster per test file, a fresh database per test.
 */
export interface TestCluster {
  readonly host: string;
  readonly port: number;
  readonly dir: string;
  /** `postgres://postgres@127.0.0.1:PORT/NAME`. */
  url(database: string): string;
  /** A new, empty database; its URL. */
  createDatabase(): Promise<string>;
  /** Runs one statement as the superuser, in the `postgres` database. */
  asSuperuser(text: string): Promise<void>;
  /** `pg_ctl stop -m immediate`: the server dies as in a crash (no checkpoint). */
  stopImmediately(): void;
  /** `pg_ctl start` again on the same port and data. */
  start(): void;
  /** A new role that must log in from 127.0.0.1 with this password (SCRAM), where every other role is trusted. */
  createRoleWithPassword(role: string, password: string): Promise<void>;
  /** Stops the server and removes its files. */
  remove(): void;
}

/** Whether `initdb` and `pg_ctl` are on PATH (Debian's postgresql-15 puts them in /usr/lib/postgresql/15/bin). */
export function postgresAvailable(): boolean {
  return spawnSync('initdb', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** On CI the PostgreSQL tests must run; elsewhere they are skipped when the binaries are missing. */
export const postgresRequired = process.env.CI === 'true';

export const postgresMissing =
  'user-group-mock: initdb not found (apt-get install postgresql-15 and put /usr/lib/postgresql/15/bin on PATH): the PostgreSQL tests are skipped';

const asPostgres = (args: readonly string[]): void => {
  const root = process.getuid?.() === 0;
  const [command, ...rest] = args as [string, ...string[]];
  if (root) execFileSync('runuser', ['-u', 'postgres', '--', command, ...rest], { stdio: 'pipe' });
  else execFileSync(command, rest, { stdio: 'pipe' });
};

/**
 * Starts a fresh cluster (a few seconds: initdb dominates). The tests run it with `fsync=off` (a killed server
 * keeps the kernel's page cache, so nothing acknowledged is lost); the benchmark asks for `fsync: true`, as a real
 * deployment runs.
 */
export async function startTestCluster(
  options: {
    fsync?: boolean /** listen_addresses (default 127.0.0.1; '*' for containers) */;
    listen?: string;
  } = {},
): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'ugm-pg-'));
  if (process.getuid?.() === 0) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'])), 0);
  const data = join(dir, 'data');
  asPostgres(['initdb', '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const host = '127.0.0.1';
  const start = (): void =>
    asPostgres([
      'pg_ctl',
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=${options.listen ?? host} -c fsync=${options.fsync ? 'on' : 'off'} -c max_connections=200`,
      '-w',
      'start',
    ]);
  start();
  let made = 0;
  const url = (database: string): string => `postgres://postgres@${host}:${port}/${database}`;
  const asSuperuser = async (text: string): Promise<void> => {
    const client = new pg.Client({ connectionString: url('postgres') });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  return {
    host,
    port,
    dir,
    url,
    asSuperuser,
    async createDatabase() {
      const name = `t${process.pid}_${++made}`;
      await asSuperuser(`CREATE DATABASE ${name}`);
      return url(name);
    },
    async createRoleWithPassword(role, password) {
      await asSuperuser(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
      // pg_hba.conf is read top down: the role's line goes before the lines that trust everyone.
      const hba = join(data, 'pg_hba.conf');
      writeFileSync(hba, `host all ${role} ${host}/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
      asPostgres(['pg_ctl', '-D', data, 'reload']);
      // The reload is signalled: wait (bounded) until the server asks the role for its password.
      for (let i = 0; i < 100; i++) {
        const client = new pg.Client({ connectionString: `postgres://${role}@${host}:${port}/postgres` });
        const trusted = await client.connect().then(
          () => true,
          () => false,
        );
        await client.end().catch(() => undefined);
        if (!trusted) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`user-group-mock: the test cluster still trusts ${role} after reloading pg_hba.conf`);
    },
    stopImmediately: () => asPostgres(['pg_ctl', '-D', data, '-m', 'immediate', '-w', 'stop']),
    start,
    remove() {
      try {
        asPostgres(['pg_ctl', '-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What is wrong with an answer given while PostgreSQL is out of reach: it must be 503 in the error envelope,
 * `STORE_UNAVAILABLE` with a `Retry-After`, and carry nothing that was decided before the store failed (no group,
 * no token).
 */
export function storeUnavailableProblems(answer: Answer): string[] {
  const problems: string[] = [];
  const body = answer.body as
    | { success?: unknown; error?: { code?: unknown; message?: unknown } }
    | undefined;
  if (answer.status !== 503) problems.push(`status ${answer.status}, not 503`);
  if (body?.success !== 0) problems.push(`success is ${JSON.stringify(body?.success)}, not 0`);
  if (body?.error?.code !== 'STORE_UNAVAILABLE')
    problems.push(`error.code is ${JSON.stringify(body?.error?.code)}, not STORE_UNAVAILABLE`);
  if (answer.headers['retry-after'] === undefined) problems.push('no Retry-After header');
  // API messages carry no product prefix (logs do).
  if (/^user-group-mock:/.test(String(body?.error?.message)))
    problems.push('the message starts with the log prefix "user-group-mock:"');
  if (/"user_group"|"new_user_group"|[0-9a-f]{64}/.test(answer.text))
    problems.push(`the body carries a group or a token: ${answer.text}`);
  return problems;
}
