import { afterEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/index.js';
import { type TempDir, tempDir } from '../support/tempDir.js';
import { profiles } from './profiles.js';
import { type RaceOutcome, raceCreates, raceRotations, raceUpdates } from './races.js';

const { creates, rotations, updates } = profiles.fast.races;

describe.each([
  { store: 'in memory', durable: false },
  { store: 'with --db', durable: true },
])('concurrent requests $store', ({ durable }) => {
  let server: MockServer | undefined;
  let dir: TempDir | undefined;
  afterEach(async () => {
    await server?.close();
    await dir?.remove();
    server = undefined;
    dir = undefined;
  });

  /** Runs one race on a fresh server; with a database, the state after a restart must equal memory. */
  async function runRace(race: (server: MockServer) => Promise<RaceOutcome>): Promise<RaceOutcome> {
    dir = durable ? await tempDir('races') : undefined;
    server = await createMockServer(dir ? { db: dir.db } : {});
    const outcome = await race(server);
    if (dir !== undefined) {
      const memory = await server.groups();
      await server.close();
      server = await createMockServer({ db: dir.db });
      expect(await server.groups()).toEqual(memory);
    }
    return outcome;
  }

  it(`makes one group and exactly one new_user_group: true from ${creates} get-or-create calls of a new id`, async () => {
    const outcome = await runRace((s) => raceCreates(s, creates));
    console.log(
      `races (${durable ? 'db' : 'memory'}): ${outcome.requests} concurrent get-or-create requests`,
    );
    expect(outcome.violations).toEqual([]);
    expect(outcome.requests).toBe(creates);
  });

  it(`lets exactly one of ${rotations} concurrent rotations with one token succeed, the rest 404`, async () => {
    const outcome = await runRace((s) => raceRotations(s, rotations));
    expect(outcome.violations).toEqual([]);
    expect(outcome.requests).toBe(rotations);
  });

  it(`leaves the fields of exactly one of ${updates} concurrent updates, never a mix`, async () => {
    const outcome = await runRace((s) => raceUpdates(s, updates));
    expect(outcome.violations).toEqual([]);
    expect(outcome.requests).toBe(updates);
  });
});
