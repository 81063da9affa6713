/**
 * The long form of the reliability suite (`npm run soak`): the scenarios of test/reliability with the `soak`
 * counts of profiles.ts, each bounded by its count and its time budget. Prints the same counts as the tests and
 * exits 1 on any violation, and on any count it did not reach: a scenario that runs out of time before its
 * promised count fails the soak (a `SHORTFALL` line says by how much), so a pass means every count was run.
 *
 *   npm run soak                          # everything (about an hour; fuzzing takes 50 minutes of it)
 *   npm run soak -- --only crash,fuzz     # some scenarios
 *   npm run soak -- --scale 0.1           # a tenth of every count and budget
 *   RELIABILITY_SEED=123 npm run soak     # replay a run
 */
import { parseArgs } from 'node:util';
import { createMockServer } from '../../src/index.js';
import { killAllMockProcesses } from '../support/mockProcess.js';
import { seedFromEnv } from '../support/random.js';
import { tempDir } from '../support/tempDir.js';
import { describeCrash, runCrashScenario } from './crash.js';
import { runDiskFaultSweep } from './diskFaults.js';
import { describeFuzz, runFuzz } from './fuzz.js';
import { hostileCases } from './hostileCases.js';
import { runHostileCase } from './hostileInput.js';
import { describeLoad, runLoad } from './load.js';
import { profiles } from './profiles.js';
import { runRaces } from './races.js';
import { type PromisedCount, shortfalls, soakVerdict } from './soakVerdict.js';

const scenarios = ['races', 'disk', 'hostile', 'fuzz', 'load', 'crash'] as const;
type Scenario = (typeof scenarios)[number];

const { values } = parseArgs({
  options: { only: { type: 'string' }, scale: { type: 'string' } },
  allowPositionals: false,
});
const only = new Set((values.only ?? scenarios.join(',')).split(',') as Scenario[]);
const scale = Number(values.scale ?? 1);
const seed = seedFromEnv();
const n = (count: number): number => Math.max(1, Math.round(count * scale));
const soak = profiles.soak;

/** What a scenario reports: its line, its violations, and the counts it promised with those it reached. */
interface StepReport {
  readonly line: string;
  readonly violations: readonly string[];
  readonly counts: readonly PromisedCount[];
  readonly timeBudgetMs?: number;
}

/** Runs one scenario: prints its line, keeps its violations and the counts it fell short of. */
const failures: string[] = [];
const shortfallLines: string[] = [];
async function step(name: Scenario, run: () => Promise<StepReport>): Promise<void> {
  if (!only.has(name)) return;
  const started = performance.now();
  try {
    const { line, violations, counts, timeBudgetMs } = await run();
    console.log(`${line} [${((performance.now() - started) / 1000).toFixed(1)} s]`);
    for (const v of violations.slice(0, 20)) console.log(`  VIOLATION ${v}`);
    failures.push(...violations.map((v) => `${name}: ${v}`));
    const short = shortfalls(name, counts, timeBudgetMs);
    for (const s of short) console.log(`  SHORTFALL ${s}`);
    shortfallLines.push(...short);
  } catch (error) {
    console.log(`${name}: FAILED ${(error as Error).stack ?? error}`);
    failures.push(`${name}: ${(error as Error).message}`);
  }
}

console.log(`user-group-mock soak, seed ${seed} (replay with RELIABILITY_SEED=${seed}), scale ${scale}`);

await step('races', async () => {
  const violations: string[] = [];
  let requests = 0;
  let rounds = 0;
  for (const durable of [false, true]) {
    const dir = durable ? await tempDir('soak-races') : undefined;
    const server = await createMockServer(dir ? { db: dir.db } : {});
    try {
      const report = await runRaces(server, { ...soak.races, rounds: n(soak.races.rounds) });
      requests += report.requests;
      rounds += report.rounds;
      violations.push(...report.violations);
    } finally {
      await server.close();
      await dir?.remove();
    }
  }
  return {
    line: `races: ${rounds} rounds in memory and with --db, ${requests} racing requests`,
    violations,
    counts: [{ what: 'rounds', promised: 2 * n(soak.races.rounds), done: rounds }],
  };
});

await step('disk', async () => {
  const options = { positions: n(soak.diskSweep.positions), sites: ['log-write', 'log-sync'] as const };
  const report = await runDiskFaultSweep({ ...options, clients: 5, stepsPerClient: 8, seed });
  const line = `disk faults: ${report.runs} runs, ${report.struck} faults struck, ${report.internalErrors} requests answered 500, ${report.acknowledged} acknowledged changes kept`;
  const runs = { what: 'runs', promised: options.positions * options.sites.length, done: report.runs };
  return { line, violations: report.violations, counts: [runs] };
});

await step('hostile', async () => {
  const violations: string[] = [];
  for (const hostile of hostileCases)
    violations.push(...(await runHostileCase(hostile)).problems.map((p) => `${hostile.name}: ${p}`));
  return { line: `hostile input: ${hostileCases.length} cases`, violations, counts: [] };
});

await step('fuzz', async () => {
  const options = {
    validRuns: n(soak.fuzz.validRuns),
    mutatedRuns: n(soak.fuzz.mutatedRuns),
    timeBudgetMs: n(soak.fuzz.timeBudgetMs),
  };
  const report = await runFuzz({ ...options, seed });
  return {
    line: describeFuzz(report),
    violations: report.failures,
    counts: [
      { what: 'valid runs', promised: options.validRuns, done: report.validRuns },
      { what: 'mutated runs', promised: options.mutatedRuns, done: report.mutatedRuns },
    ],
    timeBudgetMs: options.timeBudgetMs,
  };
});

await step('load', async () => {
  const options = { ...soak.load, requests: n(soak.load.requests), timeBudgetMs: n(soak.load.timeBudgetMs) };
  const report = await runLoad({ ...options, seed });
  const violations = [...report.violations];
  if (report.serverErrors + report.disconnects + report.transportErrors > 0)
    violations.push(
      `${report.serverErrors} 5xx, ${report.disconnects} dropped connections, ${report.transportErrors} transport errors`,
    );
  return {
    line: describeLoad(report),
    violations,
    counts: [{ what: 'requests', promised: options.requests, done: report.requests }],
    timeBudgetMs: options.timeBudgetMs,
  };
});

await step('crash', async () => {
  const options = {
    ...soak.crash,
    kills: n(soak.crash.kills),
    sigterms: n(soak.crash.sigterms),
    replayKills: n(soak.crash.replayKills),
    compactionKills: n(soak.crash.compactionKills),
    timeBudgetMs: n(soak.crash.timeBudgetMs),
  };
  const report = await runCrashScenario({
    ...options,
    seed,
    log: (line) => {
      if (/^kill \d*0:/.test(line)) console.log(`  ${line}`);
    },
  });
  return {
    line: describeCrash(report),
    violations: report.violations,
    counts: [
      { what: 'kills', promised: options.kills, done: report.kills },
      { what: 'SIGTERMs', promised: options.sigterms, done: report.sigterms },
      { what: 'kills during log replay', promised: options.replayKills, done: report.replayKills },
      { what: 'kills mid-compaction', promised: options.compactionKills, done: report.midCompactionKills },
    ],
    timeBudgetMs: options.timeBudgetMs,
  };
});

killAllMockProcesses();
const verdict = soakVerdict(failures, shortfallLines);
console.log(verdict.line);
process.exitCode = verdict.exitCode;
