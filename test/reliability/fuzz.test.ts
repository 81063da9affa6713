import { describe, expect, it } from 'vitest';
import { seedFromEnv } from '../support/random.js';
import { describeFuzz, runFuzz } from './fuzz.js';
import { profiles } from './profiles.js';

describe('property-based fuzzing from the OpenAPI schemas', { tags: ['slow'] }, () => {
  it('answers every valid request with a documented 200 and every mutated one with its documented 4xx', async () => {
    const options = profiles.fast.fuzz;
    const report = await runFuzz({ ...options, seed: seedFromEnv() });
    console.log(describeFuzz(report));
    expect(report.failures).toEqual([]);
    expect(report.validRuns).toBe(options.validRuns);
    expect(report.mutatedRuns).toBe(options.mutatedRuns);
  });
});
