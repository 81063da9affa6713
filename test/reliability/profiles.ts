/**
 * The counts of each reliability scenario: `fast` runs in `npm test`, `soak` in `npm run soak`. The scenarios
 * are the same code; only these numbers differ. Every loop is bounded by its count and by a time budget.
 */
export const profiles = {
  fast: {
    crash: {
      kills: 30,
      replayKills: 2,
      compactionKills: 2,
      sigterms: 3,
      clients: 6,
      timeBudgetMs: 150_000,
      startupKillShare: 0.25,
      loadMs: [20, 400] as const,
    },
    fuzz: { validRuns: 200, mutatedRuns: 500, timeBudgetMs: 40_000 },
    load: { requests: 10_000, connections: 50, invalidShare: 0.15, groupsPerClient: 8, timeBudgetMs: 60_000 },
    races: { rounds: 1, creates: 200, rotations: 50, updates: 50 },
    diskSweep: { positions: 3 },
  },
  soak: {
    crash: {
      kills: 300,
      replayKills: 20,
      compactionKills: 20,
      sigterms: 30,
      clients: 8,
      timeBudgetMs: 45 * 60_000,
      startupKillShare: 0.2,
      loadMs: [10, 1500] as const,
    },
    fuzz: { validRuns: 50_000, mutatedRuns: 200_000, timeBudgetMs: 50 * 60_000 },
    load: {
      requests: 200_000,
      connections: 50,
      invalidShare: 0.15,
      groupsPerClient: 40,
      timeBudgetMs: 15 * 60_000,
    },
    races: { rounds: 50, creates: 200, rotations: 50, updates: 50 },
    diskSweep: { positions: 40 },
  },
} as const;

export type Profile = (typeof profiles)[keyof typeof profiles];
