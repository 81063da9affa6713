import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commands, readyLines, run, usage } from '../../../src/cli/run.js';
import { captured } from '../../support/captured.js';

const everyCommand = Object.keys(commands);

describe('user-group-mock (the command list)', () => {
  it('has serve and verify in its table of commands', () => {
    expect(everyCommand).toEqual(expect.arrayContaining(['serve', 'verify']));
  });

  it.each([[['--help']], [['-h']], [['help']]])(
    'lists every command, with where to read its flags, for %j',
    async (argv) => {
      const { code, stdout } = await captured(() => run(argv, {}));
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: user-group-mock \[command\] \[flags\]/);
      for (const name of everyCommand) {
        expect(stdout).toMatch(new RegExp(`^  ${name} +\\S.*see "user-group-mock ${name} --help"$`, 'm'));
      }
    },
  );

  it('answers an unknown command with exit code 2, the nearest command and the list of commands', async () => {
    const { code, stdout, stderr } = await captured(() => run(['serv', '--port', '0'], {}));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^user-group-mock: unknown command "serv" \(did you mean serve\?\)\.\n/);
    for (const name of everyCommand) expect(stderr).toContain(`user-group-mock ${name} --help`);
    const far = await captured(() => run(['frobnicate'], {}));
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/^user-group-mock: unknown command "frobnicate"\.\n/);
  });

  it('lists a command as soon as it is in the table', async () => {
    const table = commands as Record<string, (typeof commands)[string]>;
    table.export = { summary: 'write the database out as JSON', run: async () => 0 };
    try {
      expect(usage()).toMatch(
        /^ {2}export +write the database out as JSON; see "user-group-mock export --help"$/m,
      );
      expect((await captured(() => run(['export'], {}))).code).toBe(0);
    } finally {
      delete table.export;
    }
  });

  it('prints the help of the command named after help', async () => {
    const { code, stdout } = await captured(() => run(['help', 'serve'], {}));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: user-group-mock serve \[flags\]/);
  });

  it.each([[['--version']], [['-v']], [['version']]])('prints the package version for %j', async (argv) => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as {
      version: string;
    };
    const { code, stdout } = await captured(() => run(argv, {}));
    expect(code).toBe(0);
    expect(stdout).toBe(`${version}\n`);
  });
});

describe('user-group-mock serve and proxy beyond loopback', () => {
  it.each([
    [['serve', '--in-memory'], 'reset or read the mock'],
    [['proxy', '--target', 'http://127.0.0.1:9'], "read the proxy's journal"],
  ])('%j exits 2 on a host beyond loopback without --admin-key, naming the option', async (argv, guards) => {
    const { code, stdout, stderr } = await captured(() =>
      run([...argv, '--port', '0'], { USER_GROUP_MOCK_HOST: '127.evil.example' }),
    );
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr).toBe(
      `user-group-mock: listening on 127.evil.example (beyond loopback) needs the adminKey option (--admin-key), so that nobody else can ${guards}\n`,
    );
  });
});

describe('the lines serve prints once it listens', () => {
  const apiKeys = [{ key: 'dev-customer-key', environment: 'Customer' }] as const;

  it.each([
    ['0.0.0.0', 'http://0.0.0.0:4010'],
    ['::', 'http://[::]:4010'],
  ])(
    'names localhost as the address to open when bound to %s, keeping the first line as it listens',
    (host, url) => {
      const lines = readyLines({ url, host, port: 4010, apiKeys }, undefined).split('\n');
      expect(lines[0]).toBe(`user-group-mock listening on ${url}`);
      const rest = lines.slice(1).join('\n');
      expect(rest).toContain('Inspector (in a browser): http://localhost:4010/__admin/ui');
      expect(rest).toContain(
        "curl -sS -X GET http://localhost:4010/api/user -H 'Authorization: Token dev-customer-key'",
      );
      expect(rest).not.toContain(url);
    },
  );

  it('names the address it listens on when it is one to open', () => {
    const lines = readyLines(
      { url: 'http://127.0.0.1:4010', host: '127.0.0.1', port: 4010, apiKeys },
      undefined,
    );
    expect(lines).toContain('API reference: http://127.0.0.1:4010/docs');
    expect(lines).not.toContain('localhost');
  });
});
