import { afterAll, describe, expect, it } from 'vitest';
import { killAllMockProcesses } from '../support/mockProcess.js';
import { seedFromEnv } from '../support/random.js';
import { describeCrash, runCrashScenario } from './crash.js';
import { profiles } from './profiles.js';

describe('crash durability of the CLI with --db', { tags: ['slow'] }, () => {
  afterAll(killAllMockProcesses);

  it('keeps every acknowledged create, update and rotation through kill -9 at random moments and SIGTERM', async () => {
    const options = profiles.fast.crash;
    const report = await runCrashScenario({ ...options, seed: seedFromEnv() });
    console.log(describeCrash(report));
    expect(report.violations).toEqual([]);
    expect(report.kills).toBeGreaterThanOrEqual(options.kills);
    // The phases a random moment rarely hits: each must have been hit, as the files show.
    expect(report.replayKills).toBeGreaterThanOrEqual(options.replayKills);
    expect(report.midCompactionKills).toBeGreaterThanOrEqual(options.compactionKills);
    expect(report.sigterms).toBe(options.sigterms);
    // The kills must have cut requests short, or the run proved nothing about unacknowledged changes.
    expect(report.unknownOutcomes).toBeGreaterThan(0);
    expect(report.acknowledged).toBeGreaterThan(options.kills * 5);
  });
});
