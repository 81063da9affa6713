import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { nothingListens, useMocks } from '../../support/http.js';
import { useTempDir } from '../../support/tempDir.js';
import { type Front, keys, startFront, wrongProviders } from '../../support/wrongProviders.js';

const mocks = useMocks();
const tempDir = useTempDir('conform-cli');
const fronts: Front[] = [];
afterEach(async () => {
  await Promise.all(fronts.splice(0).map((front) => front.close()));
});

const keyFlags = ['--api-key', `${keys.Customer}:Customer`, '--api-key', keys.Testing];

/** Runs `conform` from source to its end: exit code, stdout, stderr. */
async function conform(args: readonly string[]): Promise<{ code: number | null; out: string; err: string }> {
  const cli = runCli(['conform', ...args]);
  const code = await cli.exited;
  return { code, out: cli.lines.join('\n'), err: cli.stderr() };
}

describe('user-group-mock conform', () => {
  it('exits 0 on the mock, saying the prefix, that nothing is deleted, and writing both reports', {
    timeout: 60_000,
  }, async () => {
    const mock = await mocks();
    const dir = tempDir();
    const [junit, json] = [join(dir, 'conform.xml'), join(dir, 'conform.json')];
    const run = await conform([
      '--target',
      mock.url,
      ...keyFlags,
      '--runs',
      '20',
      '--seed',
      '3',
      '--prefix',
      'cli-3-',
      '--report-junit',
      junit,
      '--report-json',
      json,
    ]);
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.out).toMatch(
      /ids start with cli-3-[0-9a-f]{8}- \(the service has no delete: the groups made stay\); seed 3\n/,
    );
    expect(run.out).toContain('keys: $UGM_KEY_1 (Customer), $UGM_KEY_2 (Testing)');
    expect(run.out).toMatch(/behaves as described; 20 sequences, \d+ calls, 19 rules, 0 divergences$/);
    expect(readFileSync(junit, 'utf8')).toContain('tests="19" failures="0" errors="0"');
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({
      outcome: 'conforms',
      seed: 3,
      prefix: expect.stringMatching(/^cli-3-[0-9a-f]{8}-$/),
    });
    expect(readFileSync(json, 'utf8')).not.toContain(keys.Customer);
  });

  it('exits 1 on a wrong provider, printing the shrunk sequence as curl commands and a replay line that replays it', {
    timeout: 90_000,
  }, async () => {
    const mock = await mocks();
    const merged = wrongProviders.find((p) => p.name === 'properties merged instead of replaced');
    const front = await startFront(mock, (merged as (typeof wrongProviders)[number]).make());
    fronts.push(front);
    const junit = join(tempDir(), 'conform.xml');
    const run = await conform([
      '--target',
      front.url,
      ...keyFlags,
      '--runs',
      '200',
      '--seed',
      '1',
      '--report-junit',
      junit,
    ]);
    expect(run.code).toBe(1);
    expect(run.out).toContain('The shortest sequence found that diverges');
    expect(run.out).toContain(`curl -sS -X PUT '${front.url}/api/user' -H "Authorization: Token $UGM_KEY_`);
    expect(run.out).toContain('✗ PROVIDER_PROPERTIES_MERGED at /body/user_group/properties');
    // The reports are not in the replay line: a replay would write over them.
    const replay =
      /^Replay it, with UGM_KEY_1, UGM_KEY_2 set to the keys: npx user-group-mock conform --target \S+ --api-key "\$UGM_KEY_1":Customer --api-key "\$UGM_KEY_2" --runs 200 --seed 1 --path '([\d:]+@[^']+)'$/m.exec(
        run.out,
      );
    expect(replay).not.toBeNull();
    expect(run.out).not.toContain(keys.Customer);
    expect(run.err).toMatch(/conform: diverges; 200 sequences/);
    const shortest = run.out.slice(run.out.indexOf('The shortest'), run.out.indexOf('Replay it'));
    const again = await conform([
      '--target',
      front.url,
      ...keyFlags,
      '--seed',
      '1',
      '--path',
      (replay as RegExpExecArray)[1] as string,
    ]);
    expect(again.code).toBe(1);
    // The same calls again (the ids' random part and the provider's tokens aside).
    const shape = (text: string) =>
      text
        .replaceAll(/ugm-conform-[0-9a-f]{8}-\d+-/g, 'ID-')
        .replaceAll(/[0-9a-f]{64}|"team_id":\d+|team_id \d+/g, 'X');
    expect(shape(again.out.slice(again.out.indexOf('The shortest'), again.out.indexOf('Replay it')))).toBe(
      shape(shortest),
    );
  });

  it.each([
    [['--seed', '1', '--path', '1:2'], 'does not replay a sequence of seed 1'],
    [['--seed', '1', '--path', 'zzz'], 'does not replay a sequence: it is not a path a failure prints'],
    [['--seed', '1', '--path', '@zzz'], 'does not replay a sequence: it is not a path a failure prints'],
    [['--seed', '1', '--path', '99999999999999999999'], 'it is not a path a failure prints'],
    [['--seed', '1', '--path', '1000000'], 'its run, 1000000, is past the 5 runs of this replay'],
    [['--seed', '1', '--path', '0:200000'], 'a shrinking step is past 100000'],
    [['--path', '1:2'], '--path replays a sequence of one seed; give it with the --seed'],
    [['--report-junit', '/nonexistent-folder/conform.xml'], 'its folder /nonexistent-folder does not exist'],
  ])('exits 2 on a replay or a report that cannot be made: %j', { timeout: 30_000 }, async (args, says) => {
    const mock = await mocks();
    const run = await conform(['--target', mock.url, ...keyFlags, '--runs', '5', ...args]);
    expect([run.code, run.err]).toEqual([2, expect.stringContaining(says)]);
  });

  it.each([
    [
      ['--target', nothingListens, '--api-key', 'k'],
      'could not be reached (ECONNREFUSED): is the service running at that address? Start it, or correct --target. Nothing was tested.',
    ],
    [['--api-key', 'k'], 'conform needs --target URL and --api-key KEY[:Environment] (--target is missing)'],
    [['--target', nothingListens], '(--api-key is missing)'],
    [[], '(--target and --api-key are missing)'],
    [
      ['--target', nothingListens, '--api-key', 'k:Staging'],
      '--api-key "k:Staging" must be KEY, KEY:Customer or KEY:Testing',
    ],
    [
      ['--target', nothingListens, '--api-key', 'k:testing'],
      'the environment is spelt Customer or Testing, with a capital; did you mean --api-key k:Testing?',
    ],
    [
      ['--target', nothingListens, '--api-key', 'Token k'],
      'holds the word Token: give the key alone (--api-key k)',
    ],
    [['--tagret', 'x'], 'unknown flag --tagret'],
    [
      ['--target', nothingListens, '--api-key', 'k', '--api-key', 'k:Testing'],
      '--api-key k is given twice; a key has one environment',
    ],
    [
      ['--target', `${nothingListens}/svc/api/user`, '--api-key', 'k'],
      `target "${nothingListens}/svc/api/user" ends in /api/user, the path each call adds to the base URL (the calls would go to /svc/api/user/api/user); give the service's base URL, e.g. ${nothingListens}/svc`,
    ],
  ])('exits 2 when the run cannot be made: %j', { timeout: 30_000 }, async (args, says) => {
    const run = await conform(args);
    expect([run.code, run.err]).toEqual([2, expect.stringContaining(says)]);
  });

  it('exits 2 on a key given in the other environment than the service answers it in', {
    timeout: 30_000,
  }, async () => {
    const mock = await mocks();
    const run = await conform(['--target', mock.url, '--api-key', `${keys.Customer}:Testing`]);
    expect([run.code, run.err]).toEqual([
      2,
      expect.stringContaining(
        'API key 1 is given as a Testing key (--api-key KEY:Testing), but an update with it answered api_environment_tag Customer: if it is a Customer key, give it as KEY:Customer',
      ),
    ]);
  });

  it('exits 2, not 1, when the service rate-limits the run: a refused call says nothing of its behaviour', {
    timeout: 30_000,
  }, async () => {
    const mock = await mocks({ rateLimit: 10 });
    const run = await conform(['--target', mock.url, ...keyFlags, '--runs', '20']);
    expect([run.code, run.err]).toEqual([
      2,
      expect.stringMatching(
        /answered 429, rate limited \(RATE_LIMITED: more than 10 requests in a minute from this API key; wait \d+ s \(Retry-After\) and back off\): the service limits how fast a key may call it, and a refused call says nothing of its behaviour; pace the calls below the limit \(--rate-limit N\/min\)/,
      ),
    ]);
    expect(run.out).not.toContain('PROVIDER_');
  });

  it('paces the calls of each key with --rate-limit N/min, evenly', { timeout: 30_000 }, async () => {
    const mock = await mocks();
    const started = performance.now();
    const run = await conform([
      '--target',
      mock.url,
      '--api-key',
      keys.Customer,
      '--runs',
      '3',
      '--max-calls',
      '3',
      '--rate-limit',
      '600/min',
    ]);
    const elapsed = performance.now() - started;
    expect(run.code).toBe(0);
    // The sequences' calls and the probe's two, one key: 100 ms apart.
    const calls = Number(/, (\d+) calls,/.exec(run.out)?.[1]);
    expect(calls).toBeGreaterThan(0);
    expect(elapsed).toBeGreaterThanOrEqual((calls + 1) * 100);
    const refused = await conform(['--target', mock.url, '--api-key', keys.Customer, '--rate-limit', '180']);
    expect([refused.code, refused.err]).toEqual([
      2,
      expect.stringContaining('--rate-limit "180" is not of the form N/min (e.g. 180/min'),
    ]);
  });

  it('exits 2 naming the whole error when the probe is refused', { timeout: 30_000 }, async () => {
    const mock = await mocks({ bodyLimit: 40 });
    const run = await conform(['--target', mock.url, '--api-key', keys.Customer]);
    expect([run.code, run.err]).toEqual([
      2,
      expect.stringContaining(
        "answered 413 to a get-or-create with API key 1 (PAYLOAD_TOO_LARGE: the body is larger than the limit of 40 bytes; send a smaller body (the limit is the mock's or the proxy's own, whichever answered, set with its --body-limit)). Nothing was tested.",
      ),
    ]);
  });

  it('exits 2 on a key the target refuses', { timeout: 30_000 }, async () => {
    const mock = await mocks();
    const run = await conform(['--target', mock.url, '--api-key', 'not-a-key']);
    expect([run.code, run.err]).toEqual([2, expect.stringContaining('refuses API key 1 (401)')]);
  });
});
