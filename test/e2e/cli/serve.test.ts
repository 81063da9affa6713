import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { serveFlags } from '../../../src/cli/args.js';
import { validateResponse } from '../../../src/index.js';
import { type CliProcess, runCli, startCli, stopCli } from '../../support/cli.js';
import { useTempDir } from '../../support/tempDir.js';

const tempDir = useTempDir();
const running: CliProcess[] = [];
afterEach(async () => {
  for (const cli of running.splice(0)) await stopCli(cli, 'SIGKILL');
});

describe('user-group-mock serve', () => {
  it('prints the listening line first, then the keys, the browser pages and a curl that works as printed', async () => {
    const cli = await startCli(['--port', '0', '--db', join(tempDir(), 'db.json'), '--log-level', 'silent']);
    running.push(cli);
    expect(cli.lines[0]).toMatch(/^user-group-mock listening on http:\/\/127\.0\.0\.1:\d+$/);
    await expect.poll(() => cli.lines.some((l) => l.trim().startsWith('curl '))).toBe(true);
    const output = cli.lines.join('\n');
    expect(output).toContain('dev-customer-key (Customer)');
    expect(output).toContain('dev-testing-key (Testing)');
    const url = (cli.lines[0] as string).replace(/^.* listening on /, '');
    const pages = ['Inspector (in a browser): ', 'API reference: '].map((label) =>
      (cli.lines.find((l) => l.startsWith(label)) ?? '').slice(label.length),
    );
    expect(pages).toEqual([`${url}/__admin/ui`, `${url}/docs`]);
    for (const page of pages) {
      const answer = await fetch(page);
      expect([answer.status, answer.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    }
    const curl = cli.lines.find((l) => l.trim().startsWith('curl ')) as string;
    const { stdout } = await promisify(execFile)('sh', ['-c', curl.trim()]);
    const body = JSON.parse(stdout);
    expect(body).toMatchObject({ success: 1, new_user_group: true });
    expect(validateResponse({ method: 'GET', path: '/api/user', status: 200, body }).ok).toBe(true);
  });

  it('takes its settings from environment variables too', async () => {
    const cli = await startCli([], {
      USER_GROUP_MOCK_PORT: '0',
      USER_GROUP_MOCK_IN_MEMORY: 'true',
      USER_GROUP_MOCK_API_KEYS: 'k1:Testing,k2',
    });
    running.push(cli);
    await expect.poll(() => cli.lines.join('\n')).toContain('k2 (Customer)');
    expect(cli.lines.join('\n')).toContain('k1 (Testing)');
    expect(cli.lines.join('\n')).toContain('in memory');
  });

  it('documents every flag in --help', async () => {
    const cli = runCli(['serve', '--help']);
    expect(await cli.exited).toBe(0);
    const help = cli.lines.join('\n');
    for (const [name, flag] of Object.entries(serveFlags)) {
      expect(help).toContain(`--${name}`);
      if (flag.env !== undefined) expect(help).toContain(flag.env);
    }
  });

  it.each([
    [['--port', 'abc'], /--port must be an integer/],
    [['--in-memory', '--db', 'x.json'], /exclude each other/],
    [['--api-key', ':Customer'], /--api-key/],
    [['--api-key', 'k1:testing'], /did you mean --api-key k1:Testing\?/],
    [
      ['--api-key', 'k2:Prod'],
      /Customer \(production groups\) or Testing \(test groups\), spelt exactly so.*did you mean --api-key k2:Customer\?/,
    ],
    [['--log-level', 'loud'], /--log-level/],
    [['--rate-limit', '5/hour'], /N\/min/],
    [['--no-such-flag'], /serve --help/],
  ])('exits 2 with a clear message for %j', async (args, message) => {
    const cli = runCli(['serve', ...args]);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(message);
  });

  it('refuses a malformed PostgreSQL URL with exit code 2, naming --db and the expected form, not the password', async () => {
    const cli = runCli(['serve', '--port', '0', '--db', 'postgres://mock:s3cret@127.0.0.1:notaport/ugm']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toBe(
      'user-group-mock: --db "postgres://mock:***@127.0.0.1:notaport/ugm" has the port "notaport", which is not a number from 1 to 65535; a PostgreSQL database is given as postgres://user@host:5432/db (a value starting with postgres: is never a file path)\n',
    );
    expect(cli.lines).toEqual([]);
  });

  it('refuses a port in use with exit code 2, naming the port and --port 0, and creates no file', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const dir = tempDir();
      const cli = runCli(['serve', '--port', String(port), '--db', join(dir, 'data', 'db.json')]);
      expect(await cli.exited).toBe(2);
      expect(cli.stderr()).toBe(
        `user-group-mock: port ${port} on 127.0.0.1 is already in use (another server, perhaps another mock, listens there). Stop it, or choose another with the port option (--port N on the command line), or 0 for a free one.\n`,
      );
      expect(cli.lines).toEqual([]);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('flushes, releases the lock and exits 0 on SIGTERM', async () => {
    const db = join(tempDir(), 'db.json');
    const cli = await startCli(['--port', '0', '--db', db, '--log-level', 'silent']);
    running.push(cli);
    expect(existsSync(`${db}.lock`)).toBe(true);
    expect(await stopCli(cli, 'SIGTERM')).toBe(0);
    expect(existsSync(`${db}.lock`)).toBe(false);
  });
});
