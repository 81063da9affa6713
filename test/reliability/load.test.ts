import { describe, expect, it } from 'vitest';
import { seedFromEnv } from '../support/random.js';
import { describeLoad, runLoad } from './load.js';
import { profiles } from './profiles.js';

describe('load', { tags: ['slow'] }, () => {
  const { requests, connections } = profiles.fast.load;

  it(`answers ${requests} mixed requests over ${connections} connections with no 5xx, no dropped connection and nothing lost`, async () => {
    const report = await runLoad({ ...profiles.fast.load, seed: seedFromEnv() });
    console.log(describeLoad(report));
    expect(report.violations).toEqual([]);
    expect(report.requests).toBe(requests);
    expect(report.serverErrors).toBe(0);
    expect(report.transportErrors).toBe(0);
    expect(report.disconnects).toBe(0);
    expect(report.connects).toBe(connections);
    expect(report.invalid).toBeGreaterThan(requests / 20);
    expect(report.acknowledged).toBeGreaterThan(requests / 2);
  });
});
