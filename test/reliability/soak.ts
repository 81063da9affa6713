/**
 * The long form of the reliability suite (`npm run soak`): the scenarios of test/reliability with the `soak`
 * counts of profiles.ts, each bounded by its count and its time budget. Prints the same counts as the tests and
 * exits 1 on any violation.
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

/** Runs one scenario: prints its line, keeps its violations. */
const failures: string[] = [];
async function step(
  name: Scenario,
  run: () => Promise<{ line: string; violations: readonly string[] }>,
): Promise<void> {
  if (!only.has(name)) return;
  const started = performance.now();
  try {
    const { line, violations } = await run();
    console.log(`${line} [${((performance.now() - started) / 1000).toFixed(1)} s]`);
    for (const v of violations.slice(0, 20)) console.log(`  VIOLATION ${v}`);
    failures.push(...violations.map((v) => `${name}: ${v}`));
  } catch (error) {
    console.log(`${name}: FAILED ${(error as Error).stack ?? error}`);
    failures.push(`${name}: ${(error as Error).message}`);
  }
}

console.log(`user-group-mock soak, seed ${seed} (replay with RELIABILITY_SEED=${seed}), scale ${scale}`);

await step('races', async () => {
  const violations: string[] = [];
  let requests = 0;
  for (const durable of [false, true]) {
    const dir = durable ? await tempDir('soak-races') : undefined;
    const server = await createMockServer(dir ? { db: dir.db } : {});
    try {
      const report = await runRaces(server, { ...soak.races, rounds: n(soak.races.rounds) });
      requests += report.requests;
      violations.push(...report.violations);
    } finally {
      await server.close();
      await dir?.remove();
    }
  }
  return {
    line: `races: ${n(soak.races.rounds)} rounds in memory and with --db, ${requests} racing requests`,
    violations,
  };
});

await step('disk', async () => {
  const report = await runDiskFaultSweep({
    positions: n(soak.diskSweep.positions),
    sites: ['log-write', 'log-sync'],
    clients: 5,
    stepsPerClient: 8,
    seed,
  });
  const line = `disk faults: ${report.runs} runs, ${report.struck} faults struck, ${report.internalErrors} requests answered 500, ${report.acknowledged} acknowledged changes kept`;
  return { line, violations: report.violations };
});

await step('hostile', async () => {
  const violations: string[] = [];
  for (const hostile of hostileCases)
    violations.push(...(await runHostileCase(hostile)).problems.map((p) => `${hostile.name}: ${p}`));
  return { line: `hostile input: ${hostileCases.length} cases`, violations };
});

await step('fuzz', async () => {
  const report = await runFuzz({
    validRuns: n(soak.fuzz.validRuns),
    mutatedRuns: n(soak.fuzz.mutatedRuns),
    timeBudgetMs: n(soak.fuzz.timeBudgetMs),
    seed,
  });
  return { line: describeFuzz(report), violations: report.failures };
});

await step('load', async () => {
  const report = await runLoad({
    ...soak.load,
    requests: n(soak.load.requests),
    timeBudgetMs: n(soak.load.timeBudgetMs),
    seed,
  });
  const violations = [...report.violations];
  if (report.serverErrors + report.disconnects + report.transportErrors > 0)
    violations.push(
      `${report.serverErrors} 5xx, ${report.disconnects} dropped connections, ${report.transportErrors} transport errors`,
    );
  return { line: describeLoad(report), violations };
});

await step('crash', async () => {
  const report = await runCrashScenario({
    ...soak.crash,
    kills: n(soak.crash.kills),
    sigterms: n(soak.crash.sigterms),
    timeBudgetMs: n(soak.crash.timeBudgetMs),
    seed,
    log: (line) => {
      if (/^kill \d*0:/.test(line)) console.log(`  ${line}`);
    },
  });
  return { line: describeCrash(report), violations: report.violations };
});

killAllMockProcesses();
console.log(failures.length === 0 ? 'soak: all promises held' : `soak: ${failures.length} violations`);
process.exitCode = failures.length === 0 ? 0 : 1;
