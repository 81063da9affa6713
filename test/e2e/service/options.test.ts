import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createMockServer, createValidatingProxy, ProxyOptionError } from '../../../src/index.js';
import { service, useMocks } from '../../support/admin.js';

const start = useMocks();

/** Options a caller may get wrong, each refused before anything listens, naming the option and the fix. */
const refused: readonly [string, Record<string, unknown>, RegExp][] = [
  [
    'an environment in the wrong case',
    { apiKeys: [{ key: 'k', environment: 'customer' }] },
    /the apiKeys option \(--api-key\): apiKeys\[0\]\.environment must be "Customer" .* not "customer"; did you mean "Customer"\?/,
  ],
  [
    "a key in the command line's KEY:ENV form",
    { apiKeys: ['k:Customer'] },
    /apiKeys\[0\] is the string "k:Customer"; an entry is an object, e.g. \{ key: 'k', environment: 'Customer' \}/,
  ],
  ['a key with a space', { apiKeys: [{ key: 'a b', environment: 'Testing' }] }, /apiKeys\[0\]\.key must be/],
  [
    'one key for both environments',
    {
      apiKeys: [
        { key: 'k', environment: 'Customer' },
        { key: 'k', environment: 'Testing' },
      ],
    },
    /apiKeys\[1\]\.key "k" is given twice \(apiKeys\[0\] has it, for Customer\); a key belongs to one environment/,
  ],
  [
    "a rate limit in the command line's N/min form",
    { rateLimit: '180/min' },
    /the rateLimit option \(--rate-limit\): must be a whole number .*; give rateLimit: 180/,
  ],
  [
    'a misspelt PostgreSQL URL, which would be taken for a file path',
    { db: 'postgress://mock:s3cret@127.0.0.1:5432/ugm' },
    /the db option \(--db\): "postgress:\/\/mock:\*\*\*@127\.0\.0\.1:5432\/ugm" is a URL \(postgress:\), not a file path/,
  ],
  [
    'a PostgreSQL URL without a host',
    { db: 'postgres:/db.internal/ugm' },
    /the db option \(--db\): "postgres:\/db\.internal\/ugm" names no host/,
  ],
  [
    'a negative body limit',
    { bodyLimit: -1 },
    /the bodyLimit option \(--body-limit\) must be an integer from 1 to/,
  ],
  ['a port out of range', { port: 70000 }, /the port option \(--port\) must be an integer from 0 to 65535/],
  ['a misspelt option', { prot: 0 }, /there is no option "prot"; did you mean "port"\?/],
  [
    'inMemory, which the command line has',
    { inMemory: true },
    /there is no option "inMemory"; .*leave out db/,
  ],
  [
    'a log level of another name',
    { logLevel: 'debgu' },
    /the logLevel option \(--log-level\) must be silent, info or debug, not "debgu"; did you mean "debug"\?/,
  ],
];

describe('createMockServer options', () => {
  it.each(refused)('refuses %s with a TypeError naming the fix', async (_name, options, message) => {
    const refusal = await createMockServer(options).then(
      (mock) => mock.close().then(() => undefined),
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(TypeError);
    expect((refusal as Error).message).toMatch(/^user-group-mock: createMockServer: /);
    expect((refusal as Error).message).toMatch(message);
  });

  it('refuses before it listens: the port it would take stays free', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    await expect(createMockServer({ port, rateLimit: '1/min' as never })).rejects.toThrow(TypeError);
    const mock = await start({ port });
    expect(mock.port).toBe(port);
  });

  it('accepts the documented options and keeps groups in the environment given', async () => {
    const mock = await start({
      apiKeys: [{ key: 'k', environment: 'Testing' }],
      rateLimit: 180,
      bodyLimit: 1024,
    });
    const answer = await service(mock, 'GET', { user_group_id: 'a', name: 'A' }, 'k');
    expect(answer.status).toBe(200);
    expect((await mock.groups()).map((group) => group.environment)).toEqual(['Testing']);
  });

  it('says in process which option chooses another port when the port is in use', async () => {
    const first = await start();
    const refusal = await createMockServer({ port: first.port }).catch((error: Error) => error);
    expect((refusal as Error).message).toContain(
      'choose another with the port option (--port N on the command line)',
    );
  });
});

describe('createValidatingProxy options', () => {
  it.each([
    [{ port: 0 }, /createValidatingProxy: the target option \(--target\) is required, the base URL of/],
    [{ target: 'http://127.0.0.1:9', timout: 5 }, /there is no option "timout"; did you mean "timeout"\?/],
    [{ target: 'http://127.0.0.1:9', lenient: true }, /there is no option "lenient"; give mode: 'lenient'/],
    [
      { target: 'http://127.0.0.1:9', mode: 'Lenient' },
      /the mode option must be strict or lenient, not "Lenient"; did you mean "lenient"\?/,
    ],
    [
      { target: 'http://127.0.0.1:9', timeout: 0 },
      /the timeout option \(--timeout\) must be an integer from 1/,
    ],
  ])('refuses %j with a ProxyOptionError (a TypeError) naming the fix', async (options, message) => {
    const refusal = await createValidatingProxy(options as never).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ProxyOptionError);
    expect(refusal).toBeInstanceOf(TypeError);
    expect((refusal as Error).message).toMatch(message);
  });
});
