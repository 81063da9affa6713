import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformProvider } from '../../../src/conform/conformProvider.js';
import { nothingListens, useMocks } from '../../support/http.js';
import { postgresAvailable, startTestCluster, type TestCluster } from '../../support/postgres.js';
import { useTempDir } from '../../support/tempDir.js';
import { keys } from '../../support/wrongProviders.js';

const mocks = useMocks();
const tempDir = useTempDir('conform');
const apiKeys = [`${keys.Customer}:Customer`, keys.Testing]; // the Testing key's environment learnt by the probe

describe('conform against the mock', { tags: ['slow'] }, () => {
  it('finds no divergence over 200 sequences on memory', async () => {
    const mock = await mocks();
    const result = await conformProvider({ targets: [mock.url], apiKeys, runs: 200, seed: 11 });
    expect([result.outcome, result.environments, result.runs]).toEqual([
      'conforms',
      ['Customer', 'Testing'],
      200,
    ]);
    expect(result.calls).toBeGreaterThan(400);
  }, 120_000);

  it('finds no divergence over 200 sequences on a file', async () => {
    const mock = await mocks({ db: `${tempDir()}/db.json` });
    const result = await conformProvider({ targets: [mock.url], apiKeys, runs: 200, seed: 12 });
    expect(result.outcome).toBe('conforms');
  }, 180_000);

  it('creates only ids that start with its prefix', async () => {
    const mock = await mocks();
    await conformProvider({ targets: [mock.url], apiKeys, runs: 20, seed: 13, prefix: 'run-13-' });
    const ids = (await mock.groups()).map((group) => group.provided_id);
    expect(ids.length).toBeGreaterThan(2);
    expect(ids.filter((id) => !id.startsWith('run-13-'))).toEqual([]);
    expect(new Set(ids.map((id) => id.split('-')[2])).size).toBe(1); // one random part for the run
  });

  it("tells a rateLimit given in the command line's N/min form the number it takes", async () => {
    await expect(
      conformProvider({ targets: ['http://127.0.0.1:1'], apiKeys, rateLimit: '600/min' as never }),
    ).rejects.toThrow(
      /the rateLimit option \(--rate-limit\): must be a whole number .*; give rateLimit: 600/,
    );
  });

  it('says the run could not be made when a target is unreachable or refuses the key', async () => {
    const mock = await mocks();
    const unreachable = await conformProvider({ targets: [mock.url, nothingListens], apiKeys, runs: 5 });
    expect([unreachable.outcome, unreachable.reason]).toEqual([
      'could-not-run',
      expect.stringContaining('could not be reached (ECONNREFUSED)'),
    ]);
    const refused = await conformProvider({ targets: [mock.url], apiKeys: ['not-a-key'], runs: 5 });
    expect([refused.outcome, refused.reason]).toEqual([
      'could-not-run',
      expect.stringContaining('refuses API key 1 (401)'),
    ]);
  });
});

describe.skipIf(!postgresAvailable())(
  'conform against two replicas on one PostgreSQL database',
  { tags: ['slow'] },
  () => {
    let cluster: TestCluster;
    beforeAll(async () => {
      cluster = await startTestCluster();
    }, 60_000);
    afterAll(() => cluster?.remove());

    it('finds no divergence over 200 sequences, the calls spread across both', async () => {
      const db = await cluster.createDatabase();
      const [one, two] = [await mocks({ db }), await mocks({ db })];
      const result = await conformProvider({
        targets: [one?.url as string, two?.url as string],
        apiKeys,
        runs: 200,
        seed: 14,
      });
      expect([result.outcome, result.targets.length]).toEqual(['conforms', 2]);
      expect((await one?.requests())?.length).toBeGreaterThan(100);
      expect((await two?.requests())?.length).toBeGreaterThan(100);
    }, 300_000);
  },
);
