import { describe, expect, it } from 'vitest';
import { prismCorpus } from '../e2e/contract/prismCorpus.js';
import {
  type Claim,
  claimedFigures,
  folded,
  readDocument,
  readmeClaims,
  section,
} from '../support/documentedFigures.js';
import { mutations } from '../support/mutations.js';
import { hostileCases } from './hostileCases.js';
import { profiles } from './profiles.js';

const { fast, soak } = profiles;
const promise = (says: RegExp): Claim => ({ document: 'docs/guarantees.md', section: 'Guarantees', says });
const table = (says: RegExp): Claim => ({ document: 'docs/guarantees.md', section: 'Running them', says });

/**
 * Every count README.md and docs/guarantees.md state about the tests, with the count the tests run: the profiles
 * of profiles.ts and the case lists, each of which its test asserts it ran in full.
 */
const claims: ReadonlyArray<{
  readonly what: string;
  readonly claim: Claim;
  readonly counts: readonly number[];
}> = [
  { what: 'the number of hostile inputs', claim: readmeClaims.hostileInputs, counts: [hostileCases.length] },
  {
    what: 'the number of requests sent to Prism',
    claim: readmeClaims.prismRequests,
    counts: [prismCorpus.length],
  },
  {
    what: "the crash test's kills",
    claim: promise(/\((\d[\d,]*) kills in `npm test`, (\d[\d,]*) in the soak\)/),
    counts: [fast.crash.kills, soak.crash.kills],
  },
  {
    what: "the crash test's clients",
    claim: promise(/while (\w+) concurrent clients create, update and rotate/),
    counts: [fast.crash.clients],
  },
  {
    what: "the crash test's SIGTERM rounds",
    claim: promise(/(\w+) rounds in `npm test`, (\d[\d,]*) in the soak/),
    counts: [fast.crash.sigterms, soak.crash.sigterms],
  },
  {
    what: 'the racing get-or-creates',
    claim: promise(/In the test, (\d[\d,]*) requests are held back/),
    counts: [fast.races.creates],
  },
  {
    what: "the racing get-or-creates in the test's name",
    claim: promise(/from (\d[\d,]*) get-or-create calls of a new id/),
    counts: [fast.races.creates],
  },
  {
    what: 'the losing rotations',
    claim: promise(/The other (\d[\d,]*) answer 404/),
    counts: [fast.races.rotations - 1],
  },
  {
    what: 'the racing rotations',
    claim: promise(/exactly one of (\d[\d,]*) concurrent rotations/),
    counts: [fast.races.rotations],
  },
  {
    what: 'the racing updates',
    claim: promise(/After (\d[\d,]*) concurrent full updates/),
    counts: [fast.races.updates],
  },
  {
    what: "the racing updates in the test's name",
    claim: promise(/exactly one of (\d[\d,]*) concurrent updates/),
    counts: [fast.races.updates],
  },
  {
    what: 'the disk-fault positions',
    claim: promise(/N = 1…(\d+) in `npm test`, 1…(\d+) in the soak/),
    counts: [fast.diskSweep.positions, soak.diskSweep.positions],
  },
  {
    what: 'the number of hostile requests',
    claim: promise(/The test sends (\d[\d,]*) hostile requests/),
    counts: [hostileCases.length],
  },
  {
    what: 'the number of mutations',
    claim: promise(/broken in one of (\d[\d,]*) ways/),
    counts: [mutations.length],
  },
  {
    what: 'the fuzzing runs and budget',
    claim: promise(
      /\((\d[\d,]*) \+ (\d[\d,]*) runs in `npm test`; (\d[\d,]*) \+ (\d[\d,]*) in the soak, within a (\d+)-minute budget\)/,
    ),
    counts: [
      fast.fuzz.validRuns,
      fast.fuzz.mutatedRuns,
      soak.fuzz.validRuns,
      soak.fuzz.mutatedRuns,
      soak.fuzz.timeBudgetMs / 60_000,
    ],
  },
  {
    what: "the load's requests and connections",
    claim: promise(/sends (\d[\d,]*) requests over (\d+) keep-alive connections/),
    counts: [fast.load.requests, fast.load.connections],
  },
  {
    what: "the load's share of broken requests",
    claim: promise(/rotations and (\d+) % broken requests/),
    counts: [fast.load.invalidShare * 100],
  },
  {
    what: "the load's requests and connections in the test's name",
    claim: promise(/answers (\d+) mixed requests over (\d+) connections/),
    counts: [fast.load.requests, fast.load.connections],
  },
  {
    what: "the load's requests in the soak",
    claim: promise(/\((\d[\d,]*) requests in the soak\)/),
    counts: [soak.load.requests],
  },
  {
    what: "the table's crash counts",
    claim: table(
      /\| kill -9 \/ SIGTERM \(crash\.test\.ts\) \| (\d+) kills, (\d+) SIGTERMs, (\d+) clients \| (\d+) kills, (\d+) SIGTERMs, (\d+) clients \|/,
    ),
    counts: [
      fast.crash.kills,
      fast.crash.sigterms,
      fast.crash.clients,
      soak.crash.kills,
      soak.crash.sigterms,
      soak.crash.clients,
    ],
  },
  {
    what: "the table's race counts",
    claim: table(
      /\| races \(races\.test\.ts\) \| (\d+) creates, (\d+) rotations, (\d+) updates, (\w+) per store \| the same, (\d+) rounds per store \|/,
    ),
    counts: [
      fast.races.creates,
      fast.races.rotations,
      fast.races.updates,
      fast.races.rounds,
      soak.races.rounds,
    ],
  },
  {
    what: "the table's disk-fault positions",
    claim: table(/\| Nth write or fdatasync fails \(diskFaults\.test\.ts\) \| N = 1…(\d+) \| N = 1…(\d+) \|/),
    counts: [fast.diskSweep.positions, soak.diskSweep.positions],
  },
  {
    what: "the table's hostile cases",
    claim: table(/\| hostile input \(hostileInput\.test\.ts\) \| (\d+) cases \| (\d+) cases \|/),
    counts: [hostileCases.length, hostileCases.length],
  },
  {
    what: "the table's fuzzing runs",
    claim: table(
      /\| fuzzing \(fuzz\.test\.ts\) \| (\d[\d,]*) valid \+ (\d[\d,]*) mutated runs \| (\d[\d,]*) \+ (\d[\d,]*) runs, (\d+) min budget \|/,
    ),
    counts: [
      fast.fuzz.validRuns,
      fast.fuzz.mutatedRuns,
      soak.fuzz.validRuns,
      soak.fuzz.mutatedRuns,
      soak.fuzz.timeBudgetMs / 60_000,
    ],
  },
  {
    what: "the table's load counts",
    claim: table(
      /\| load \(load\.test\.ts\) \| (\d[\d,]*) requests, (\d+) connections \| (\d[\d,]*) requests, (\d+) connections \|/,
    ),
    counts: [fast.load.requests, fast.load.connections, soak.load.requests, soak.load.connections],
  },
];

/**
 * Parts of the documents where every figure must be one of the claims above, so that a count added to them
 * without a check fails here; `notCounts` are the figures there that count nothing the tests run.
 */
const checkedThroughout: ReadonlyArray<{
  readonly part: string;
  readonly text: () => string;
  readonly notCounts: readonly RegExp[];
}> = [
  {
    part: 'README.md › Guarantees',
    text: () => section(readDocument('README.md'), 'Guarantees'),
    notCounts: [/kill -9/g, /answers 500/g, /\b4xx\b/g],
  },
  {
    part: 'the table of counts in docs/guarantees.md › Running them',
    text: () =>
      section(readDocument('docs/guarantees.md'), 'Running them')
        .split('\n')
        .filter((line) => line.startsWith('|'))
        .join('\n'),
    notCounts: [],
  },
];

describe('the counts README.md and docs/guarantees.md state about the tests', () => {
  it.each(
    claims.map(
      ({ what, claim, counts }) => [what, `${claim.document} › ${claim.section}`, claim, counts] as const,
    ),
  )('states %s in %s as the tests run them', (_what, _where, claim, counts) => {
    expect(claimedFigures(claim)).toEqual(counts);
  });

  it.each(checkedThroughout.map((part) => [part.part, part] as const))(
    'states no figure in %s that no test checks',
    (_part, { part, text, notCounts }) => {
      let rest = folded(text());
      for (const { claim } of claims) rest = rest.replace(claim.says, '');
      for (const pattern of notCounts) rest = rest.replace(pattern, '');
      const unchecked = [...rest.matchAll(/\S*\d\S*/g)].map(([word]) => word);
      expect(unchecked, `${part} states figures no test checks`).toEqual([]);
    },
  );

  it('runs the same races in the soak as in npm test, only more rounds of them', () => {
    // The table of counts says "the same" (its check above), so the soak's races must be those of npm test.
    expect({ ...soak.races, rounds: 0 }).toEqual({ ...fast.races, rounds: 0 });
  });

  it('aims kills at the log replay and at compactions in npm test and in the soak, as the crash promise says', () => {
    expect(folded(section(readDocument('docs/guarantees.md'), 'Guarantees'))).toContain(
      'Some kills land during start-up, while the log is being replayed; some land during a compaction.',
    );
    for (const profile of [fast, soak]) {
      expect(profile.crash.replayKills).toBeGreaterThanOrEqual(1);
      expect(profile.crash.compactionKills).toBeGreaterThanOrEqual(1);
    }
  });
});
