import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { apiRequest, errorCodeOf, isNewGroup, send, userGroupOf } from '../support/apiRequest.js';
import { readDatabaseFiles } from '../support/dbFiles.js';
import { Ledger } from '../support/ledger.js';
import { type MockEntry, type MockProcess, startMockProcess } from '../support/mockProcess.js';
import { Random } from '../support/random.js';
import { tempDir } from '../support/tempDir.js';
import { ClientScript, WorkloadStats } from '../support/workload.js';

export interface CrashOptions {
  /** kill -9 this many times (the run stops earlier only at `timeBudgetMs`). */
  readonly kills: number;
  /** Graceful stops (SIGTERM) under load after the kills. */
  readonly sigterms: number;
  readonly clients: number;
  readonly timeBudgetMs: number;
  readonly seed: number;
  /** Share of kills that land while the mock is still starting (replaying its log). */
  readonly startupKillShare: number;
  /** Share of runs served by a child that compacts every few records, so kills hit compactions too. */
  readonly compactingShare: number;
  /** Load lasts a random time in this range before the kill. */
  readonly loadMs: readonly [number, number];
  readonly log?: (line: string) => void;
}

export interface CrashReport {
  readonly seed: number;
  kills: number;
  startupKills: number;
  midCompactionKills: number;
  sigterms: number;
  restarts: number;
  /** Changes the server acknowledged (each must survive). */
  acknowledged: number;
  /** Requests whose answer the kill swallowed, and how many of those turned out applied. */
  unknownOutcomes: number;
  appliedUnknowns: number;
  requests: number;
  /** Old tokens checked dead and current ones checked alive after restarts. */
  tokenChecks: number;
  readonly violations: string[];
  elapsedMs: number;
}

/**
 * Crash durability: the mock serves several concurrent clients creating, updating and rotating groups, and is
 * killed with SIGKILL at a random moment; then the files are read independently of the store code and every
 * acknowledged change must be there (an unanswered one may or may not be), the mock restarts, and every group
 * reads back as acknowledged: current tokens work, superseded ones answer 404. SIGTERM rounds then stop the mock
 * gracefully under load: exit code 0, lock released, no torn log line, nothing acknowledged lost.
 */
export async function runCrashScenario(options: CrashOptions): Promise<CrashReport> {
  const started = performance.now();
  const report: CrashReport = {
    seed: options.seed,
    kills: 0,
    startupKills: 0,
    midCompactionKills: 0,
    sigterms: 0,
    restarts: 0,
    acknowledged: 0,
    unknownOutcomes: 0,
    appliedUnknowns: 0,
    requests: 0,
    tokenChecks: 0,
    violations: [],
    elapsedMs: 0,
  };
  const dir = await tempDir('crash');
  const random = new Random(options.seed);
  const ledger = new Ledger();
  const stats = new WorkloadStats();
  const scripts = Array.from(
    { length: options.clients },
    (_, i) =>
      new ClientScript(`c${i}`, ledger, new Random(options.seed + i + 1), stats, {
        groupsPerClient: 6,
        invalidShare: 0,
      }),
  );
  const overBudget = (): boolean => performance.now() - started > options.timeBudgetMs;
  const checkDisk = async (when: string): Promise<void> => {
    try {
      const files = await readDatabaseFiles(dir.db);
      for (const v of ledger.reconcile(files.groups)) report.violations.push(`${when}: ${v}`);
    } catch (error) {
      report.violations.push(`${when}: the database does not parse: ${(error as Error).message}`);
    }
  };

  try {
    while (report.kills < options.kills && !overBudget() && report.violations.length === 0) {
      const entry: MockEntry = random.chance(options.compactingShare)
        ? { kind: 'compacting', compactAfter: random.int(8, 40) }
        : { kind: 'cli' };
      const mock = startMockProcess(dir.db, entry);
      if (random.chance(options.startupKillShare)) {
        await Promise.race([sleep(random.int(0, 900)), mock.exited]);
        if (!mock.isReady()) report.startupKills++;
        await kill(mock);
        report.kills++;
        await checkDisk(`after start-up kill ${report.kills}`);
        continue;
      }
      const url = await mock.ready;
      report.restarts++;
      await readBack(url, ledger, report);
      await underLoad(url, scripts, async () => {
        await sleep(random.int(options.loadMs[0], options.loadMs[1]));
        await kill(mock);
      });
      report.kills++;
      if (await midCompaction(dir.db, mock.child.pid)) report.midCompactionKills++;
      await checkDisk(`after kill ${report.kills} (${entry.kind})`);
      options.log?.(`kill ${report.kills}: ${ledger.acknowledged} acknowledged, ${stats.statuses()}`);
    }

    for (
      let round = 0;
      round < options.sigterms && report.violations.length === 0 && !overBudget();
      round++
    ) {
      const mock = startMockProcess(dir.db, { kind: 'cli' });
      const url = await mock.ready;
      report.restarts++;
      await readBack(url, ledger, report);
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      await underLoad(url, scripts, async () => {
        await sleep(random.int(options.loadMs[0], options.loadMs[1]));
        mock.child.kill('SIGTERM');
        exit = await withTimeout(mock.exited, 15_000, 'the mock did not exit within 15 s of SIGTERM');
      });
      report.sigterms++;
      if (exit?.code !== 0)
        report.violations.push(`SIGTERM ${round + 1}: exit ${exit?.code} ${exit?.signal}: ${mock.stderr()}`);
      const files = await readDatabaseFiles(dir.db);
      if (files.files.includes('db.json.lock'))
        report.violations.push(`SIGTERM ${round + 1}: the lock is still there`);
      if (files.tornTailBytes > 0)
        report.violations.push(
          `SIGTERM ${round + 1}: the log ends in a torn line of ${files.tornTailBytes} bytes`,
        );
      await checkDisk(`after SIGTERM ${round + 1}`);
    }
  } finally {
    report.acknowledged = ledger.acknowledged;
    report.unknownOutcomes = ledger.unknownOutcomes;
    report.appliedUnknowns = ledger.appliedUnknowns;
    report.requests = stats.requests;
    report.violations.push(...stats.violations);
    report.elapsedMs = Math.round(performance.now() - started);
    await dir.remove();
  }
  return report;
}

/** Runs every client until `stop` has run (each stops at its first failed request, or when stop is done). */
async function underLoad(
  url: string,
  scripts: readonly ClientScript[],
  stop: () => Promise<void>,
): Promise<void> {
  const pool = new Pool(url, { connections: scripts.length });
  let stopped = false;
  const clients = scripts.map(async (script) => {
    while (!stopped) {
      try {
        await script.step(pool);
      } catch {
        return;
      }
    }
  });
  try {
    await stop();
  } finally {
    stopped = true;
    await Promise.all(clients);
    await pool.destroy();
  }
}

/** After a restart: every settled group reads back as acknowledged, and its last superseded tokens are dead. */
async function readBack(url: string, ledger: Ledger, report: CrashReport): Promise<void> {
  const pool = new Pool(url, { connections: 8 });
  try {
    const checks = ledger.settled().map(async ([key, group]) => {
      const read = await send(
        pool,
        apiRequest('getOrCreateUserGroup', { user_group_id: group.provided_id, name: group.name }),
      );
      const echoed = userGroupOf(read);
      if (
        read.status !== 200 ||
        isNewGroup(read) !== false ||
        echoed.token !== group.token ||
        echoed.team_id !== group.team_id
      )
        report.violations.push(
          `read-back ${key}: ${read.status} ${read.text.slice(0, 300)}; expected token ${group.token}`,
        );
      report.tokenChecks++;
      for (const old of ledger.superseded(key).slice(-3)) {
        const reuse = await send(pool, apiRequest('rotateUserGroupToken', { current_token: old }));
        if (reuse.status !== 404 || errorCodeOf(reuse) !== 'TOKEN_NOT_FOUND')
          report.violations.push(`${key}: superseded token ${old} answered ${reuse.status}`);
        report.tokenChecks++;
      }
    });
    await Promise.all(checks);
  } finally {
    await pool.destroy();
  }
}

async function kill(mock: MockProcess): Promise<void> {
  mock.child.kill('SIGKILL');
  await withTimeout(mock.exited, 10_000, 'the mock did not die within 10 s of SIGKILL');
}

/**
 * Whether the kill interrupted a compaction: the killed process's snapshot temp file (`.db.json.<pid>.*.tmp`) is
 * there, or more than one log generation is live (the snapshot of the newer one is not in place yet).
 */
async function midCompaction(db: string, pid: number | undefined): Promise<boolean> {
  const files = await readDatabaseFiles(db);
  const live = files.logGenerations.filter((g) => g >= (files.snapshotGeneration ?? 1));
  return live.length > 1 || files.files.some((f) => f.startsWith(`.${basename(db)}.${pid}.`));
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** One line of counts, printed by the test and by the soak. */
export const describeCrash = (r: CrashReport): string =>
  `crash (seed ${r.seed}): ${r.kills} kills (${r.startupKills} during start-up, ${r.midCompactionKills} mid-compaction), ` +
  `${r.sigterms} SIGTERMs, ${r.restarts} restarts, ${r.requests} requests, ${r.acknowledged} acknowledged changes kept, ` +
  `${r.unknownOutcomes} unanswered (${r.appliedUnknowns} applied), ${r.tokenChecks} token checks, ${r.violations.length} violations, ` +
  `${(r.elapsedMs / 1000).toFixed(1)} s`;
