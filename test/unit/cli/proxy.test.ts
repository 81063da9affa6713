import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProxyArgs, proxyFlags, proxyHelp, readyLines } from '../../../src/cli/proxy.js';
import { run } from '../../../src/cli/run.js';
import { captured } from '../../support/captured.js';
import { useTempDir } from '../../support/tempDir.js';

const tempDir = useTempDir('proxy-args');

const target = ['--target', 'http://127.0.0.1:9'];

describe('user-group-mock proxy (its flags)', () => {
  it('is a command of the table, with its help', async () => {
    const { code, stdout } = await captured(() => run(['help', 'proxy'], {}));
    expect(code).toBe(0);
    expect(stdout).toBe(proxyHelp());
    for (const [name, flag] of Object.entries(proxyFlags)) {
      expect(stdout).toContain(`--${name}`);
      if (flag.env !== undefined) expect(stdout).toContain(`[${flag.env}]`);
    }
  });

  it('reads every flag from its environment variable', () => {
    const args = parseProxyArgs([], {
      USER_GROUP_MOCK_TARGET: 'https://staging.example.com',
      USER_GROUP_MOCK_PORT: '0',
      USER_GROUP_MOCK_LENIENT: 'true',
      USER_GROUP_MOCK_BLOCK_INVALID: '1',
      USER_GROUP_MOCK_RECORD: 'seen.json',
      USER_GROUP_MOCK_PACT_CONSUMER: 'web',
      USER_GROUP_MOCK_PACT_PROVIDER: 'groups',
      USER_GROUP_MOCK_TIMEOUT: '250',
      USER_GROUP_MOCK_TARGET_CA: 'ca.pem',
      USER_GROUP_MOCK_BODY_LIMIT: '2048',
      USER_GROUP_MOCK_ADMIN_KEY: 'secret',
      USER_GROUP_MOCK_LOG_LEVEL: 'silent',
      USER_GROUP_MOCK_HOST: '127.0.0.2',
    });
    expect(args).toEqual({
      help: false,
      target: 'https://staging.example.com',
      host: '127.0.0.2',
      port: 0,
      mode: 'lenient',
      blockInvalid: true,
      record: 'seen.json',
      pactConsumer: 'web',
      pactProvider: 'groups',
      timeout: 250,
      targetCa: 'ca.pem',
      bodyLimit: 2048,
      adminKey: 'secret',
      logLevel: 'silent',
    });
  });

  it('is strict and forwards invalid requests unless told otherwise', () => {
    expect(parseProxyArgs(target, {})).toMatchObject({
      mode: 'strict',
      blockInvalid: false,
      timeout: 10_000,
    });
  });

  it.each([
    [['--port', '0'], /proxy needs --target URL/],
    [[...target, '--strict', '--lenient'], /--strict and --lenient exclude each other/],
    [[...target, '--timout', '5'], /unknown flag --timout \(did you mean --timeout\?\)/],
    [[...target, '--timeout', 'soon'], /--timeout must be an integer/],
  ])('refuses %j with a message naming the fix', (argv, message) => {
    expect(() => parseProxyArgs(argv, {})).toThrow(message);
  });

  it('exits 2 with the message on a wrong target', async () => {
    const { code, stderr } = await captured(() => run(['proxy', '--target', 'staging.example.com'], {}));
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^user-group-mock: the target option \(--target\) "staging.example.com" is not an http\(s\) base URL/,
    );
  });

  it('exits 2 on a target that ends in the path each call adds, naming its base URL', async () => {
    const { code, stderr } = await captured(() =>
      run(['proxy', '--target', 'http://127.0.0.1:4010/api/user/'], {}),
    );
    expect(code).toBe(2);
    expect(stderr).toBe(
      `user-group-mock: the target option (--target) "http://127.0.0.1:4010/api/user/" ends in /api/user, the path each call adds to the base URL (the calls would go to /api/user/api/user); give the service's base URL, e.g. http://127.0.0.1:4010\n`,
    );
  });

  it('exits 2 naming the folder and the fix when --record points into a missing folder, before it listens', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = String((busy.address() as AddressInfo).port);
    const folder = join(tempDir(), 'rec');
    try {
      const { code, stderr } = await captured(() =>
        run(['proxy', ...target, '--port', port, '--record', join(folder, 'seen.json')], {}),
      );
      expect(code).toBe(2);
      expect(stderr).toBe(
        `user-group-mock: cannot record to ${join(folder, 'seen.json')}, the record option (--record): the folder ${folder} does not exist; create it first (mkdir -p ${folder}) or record into an existing folder\n`,
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});

describe('user-group-mock proxy --api-key', () => {
  it('declares the environment of each key, repeatable and from its variable comma-separated', () => {
    const keys = [
      { key: 'live-key', environment: 'Customer' },
      { key: 'test-key', environment: 'Testing' },
    ];
    expect(
      parseProxyArgs([...target, '--api-key', 'live-key:Customer', '--api-key', 'test-key:Testing'], {})
        .apiKeys,
    ).toEqual(keys);
    expect(
      parseProxyArgs(target, { USER_GROUP_MOCK_API_KEYS: 'live-key:Customer,test-key:Testing' }).apiKeys,
    ).toEqual(keys);
  });

  it('refuses a key without its environment: the proxy holds no keys, a key given says where it belongs', () => {
    expect(() => parseProxyArgs([...target, '--api-key', 'live-key'], {})).toThrow(
      'user-group-mock: --api-key "live-key" must be KEY:Customer or KEY:Testing (the environment the key belongs to), e.g. --api-key my-key:Testing',
    );
  });

  it('tells a misspelt environment, an empty key (an unset variable) and a key with its scheme their likely fix', () => {
    expect(() => parseProxyArgs([...target, '--api-key', 'test-key:testing'], {})).toThrow(
      /; did you mean --api-key test-key:Testing\?$/,
    );
    expect(() => parseProxyArgs([...target, '--api-key', 'live-key:prod'], {})).toThrow(
      /; did you mean --api-key live-key:Customer\?$/,
    );
    expect(() => parseProxyArgs([...target, '--api-key', ':Testing'], {})).toThrow(
      /the key before ":" is empty: was the variable that holds it unset/,
    );
    expect(() => parseProxyArgs([...target, '--api-key', 'Token live-key:Customer'], {})).toThrow(
      /; give the key alone, without "Token " \(the word a client puts before the key in Authorization\): --api-key live-key:Customer$/,
    );
    expect(() => parseProxyArgs([...target, '--api-key', 'a:b:Testing'], {})).toThrow(
      /e\.g\. --api-key my-key:Testing$/,
    );
  });

  it('prints the verdicts curl with the X-Admin-Key header when the proxy has an admin key', () => {
    const proxy = { url: 'http://127.0.0.1:4011', target: 'http://127.0.0.1:4010' };
    const base = parseProxyArgs(['--target', proxy.target], {});
    const keyed = parseProxyArgs(['--target', proxy.target, '--admin-key', 's3cret'], {});
    expect(readyLines(proxy, base)).toContain(
      "verdicts: curl -sS 'http://127.0.0.1:4011/__admin/requests?invalid=true'\n",
    );
    expect(readyLines(proxy, keyed)).toContain(
      "verdicts: curl -sS 'http://127.0.0.1:4011/__admin/requests?invalid=true' -H 'X-Admin-Key: <the --admin-key value>'",
    );
    expect(readyLines(proxy, keyed)).not.toContain('s3cret');
  });
});
