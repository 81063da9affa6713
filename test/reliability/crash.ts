import { readdirSync, watch } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { type DatabaseFiles, readDatabaseFiles } from '../support/dbFiles.js';
import { apiRequest, errorCodeOf, isNewGroup, send, userGroupOf } from '../support/http.js';
import { Ledger } from '../support/ledger.js';
import { type MockProcess, startMockProcess } from '../support/mockProcess.js';
import { Random } from '../support/random.js';
import { tempDir } from '../support/tempDir.js';
import { ClientScript, WorkloadStats } from '../support/workload.js';

export interface CrashOptions {
  /** kill -9 at least this many times (the run stops earlier only at `timeBudgetMs`). */
  readonly kills: number;
  /** Of the kills, at least this many must land while the mock replays its change log at start-up. */
  readonly replayKills: number;
  /** Of the kills, at least this many must land while a compaction is under way. */
  readonly compactionKills: number;
  /** Graceful stops (SIGTERM) under load after the kills. */
  readonly sigterms: number;
  readonly clients: number;
  readonly timeBudgetMs: number;
  readonly seed: number;
  /** Share of the other kills that land at a random moment of start-up (before the mock listens). */
  readonly startupKillShare: number;
  /** Load lasts a random time in this range before the kill. */
  readonly loadMs: readonly [number, number];
  readonly log?: (line: string) => void;
}

export interface CrashReport {
  readonly seed: number;
  kills: number;
  /** Kills before the mock listened. */
  startupKills: number;
  /** Kills that landed while the mock replayed its change log (a subset of `startupKills`), and the attempts. */
  replayKills: number;
  replayAttempts: number;
  /** Kills that landed while a compaction was under way, and the attempts aimed at one. */
  midCompactionKills: number;
  compactionAttempts: number;
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
 * Crash durability of the built command line (`dist/bin/main.js serve --db`): the mock serves several concurrent
 * clients creating, updating and rotating groups, and is killed with SIGKILL at random moments; then the files are
 * read independently of the store code and every acknowledged change must be there (an unanswered one may or may
 * not be), the mock restarts, and every group reads back as acknowledged: current tokens work, superseded ones
 * answer 404. Between the random kills, engineered kills land in the two phases a random moment rarely hits (see
 * `compactionKill` and `replayKill`). SIGTERM rounds then stop the mock gracefully under load: exit code 0, lock
 * released, no torn log line, nothing acknowledged lost.
 */
export async function runCrashScenario(options: CrashOptions): Promise<CrashReport> {
  const started = performance.now();
  const report: CrashReport = {
    seed: options.seed,
    kills: 0,
    startupKills: 0,
    replayKills: 0,
    replayAttempts: 0,
    midCompactionKills: 0,
    compactionAttempts: 0,
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
  const remainingMs = (): number => options.timeBudgetMs - (performance.now() - started);
  const overBudget = (): boolean => remainingMs() < 0;
  let files: DatabaseFiles | undefined;
  const checkDisk = async (when: string): Promise<void> => {
    try {
      files = await readDatabaseFiles(dir.db);
      for (const v of ledger.reconcile(files.groups)) report.violations.push(`${when}: ${v}`);
    } catch (error) {
      report.violations.push(`${when}: the database does not parse: ${(error as Error).message}`);
    }
  };
  /** How long the last start took until the mock listened: random start-up kills land within it. */
  let startupMs = 300;
  /** Starts the mock on the database and reads every settled group back. */
  const restart = async (): Promise<{ mock: MockProcess; url: string }> => {
    const begun = performance.now();
    const mock = startMockProcess(dir.db);
    const url = await mock.ready;
    startupMs = performance.now() - begun;
    report.restarts++;
    await readBack(url, ledger, report);
    return { mock, url };
  };
  const killed = async (mock: MockProcess, newestBefore: number, when: string): Promise<void> => {
    await kill(mock);
    report.kills++;
    if (!mock.isReady()) report.startupKills++;
    await checkDisk(when);
    if (files !== undefined && compactionInterrupted(dir.db, newestBefore, files, mock.child.pid))
      report.midCompactionKills++;
  };

  let fillerKey: string | undefined;
  /**
   * A kill while a compaction is under way. The mock compacts once its newest log holds 20,000 records (the
   * default `compactAfter`, which the command line keeps), so a filler tenant's group is updated over many
   * connections until the next log generation appears (even cycles) or the snapshot's temp file does (odd
   * cycles); the kill is sent from that very file-system event. It landed mid-compaction when the files show
   * the new generation while an older log or the temp file is still there (a compaction removes them last).
   */
  const compactionKill = async (cycle: number): Promise<void> => {
    const newestBefore = newestGeneration(files);
    const { mock, url } = await restart();
    fillerKey ??= await createTenant(url);
    const pid = mock.child.pid;
    const prefix = `.${basename(dir.db)}.${pid}.`;
    const compacting =
      cycle % 2 === 0
        ? (names: readonly string[]) => names.some((n) => (logGeneration(dir.db, n) ?? 0) > newestBefore)
        : (names: readonly string[]) => names.some((n) => n.startsWith(prefix) && n.endsWith('.tmp'));
    const trigger = killWhen(dir.path, compacting, mock);
    await underLoad(url, scripts, async () => {
      const pumping = pump(url, fillerKey as string, report);
      const limitMs = Math.max(1_000, Math.min(120_000, remainingMs()));
      const outcome = await Promise.race([
        trigger.fired.then(() => 'compacting'),
        pumping.then(() => 'the filler stopped'),
        sleep(limitMs, `no compaction started within ${limitMs} ms`),
      ]);
      if (outcome !== 'compacting') options.log?.(`compaction cycle ${cycle + 1}: ${outcome}`);
      await kill(mock);
      await pumping;
    });
    trigger.close();
    report.compactionAttempts++;
    await killed(mock, newestBefore, `after compaction kill ${cycle + 1}`);
    options.log?.(`compaction kill ${cycle + 1} left ${files?.files.join(', ')}`);
  };

  /**
   * A kill while the mock replays its change log at start-up. Before the start, a stale log generation 0 is put
   * beside the database (the store deletes stale logs just before it replays the live ones) and a torn last line
   * is appended to the newest log (the store cuts it off when it opens that log for appending, after the replay).
   * The kill is sent from the file-system event of the stale log's removal. It landed in the replay when the stale
   * log is gone but the torn line is still there. It follows a compaction kill: when that one landed before the
   * new snapshot was in place, the live logs hold the 20,000 records of the interrupted compaction, and replaying
   * them takes far longer (100 ms and more) than the kill takes to arrive (a few ms). A kill that came too late
   * does not count, and the cycle is run again.
   */
  const replayKill = async (attempt: number): Promise<void> => {
    const before = await readDatabaseFiles(dir.db);
    const newest = before.logGenerations.at(-1);
    if (newest === undefined || newest < (before.snapshotGeneration ?? 1)) return;
    const stale = `${basename(dir.db)}.log.${staleGeneration}`;
    await writeFile(`${dir.db}.log.${staleGeneration}`, staleLogLine);
    await appendFile(`${dir.db}.log.${newest}`, tornLine);
    const tornBytes = before.tornTailBytes + Buffer.byteLength(tornLine);
    const mock = startMockProcess(dir.db);
    const trigger = killWhen(dir.path, (names) => !names.includes(stale), mock);
    const exit = await withTimeout(
      Promise.race([trigger.fired.then(() => mock.exited), mock.exited]),
      30_000,
      'the mock neither removed the stale log nor exited within 30 s of its start',
    );
    trigger.close();
    if (exit.signal !== 'SIGKILL')
      report.violations.push(
        `replay kill ${attempt + 1}: the mock exited by itself (code ${exit.code}): ${mock.stderr()}`,
      );
    report.replayAttempts++;
    await killed(mock, newestGeneration(before), `after replay kill ${attempt + 1}`);
    if (
      files !== undefined &&
      !mock.isReady() &&
      !files.files.includes(stale) &&
      files.tornTailBytes === tornBytes
    )
      report.replayKills++;
  };

  const cyclesWanted = Math.max(options.replayKills, options.compactionKills);
  const spacing = Math.max(1, Math.floor(options.kills / (cyclesWanted + 1)));
  const phasesHit = (): boolean =>
    report.replayKills >= options.replayKills && report.midCompactionKills >= options.compactionKills;
  let cycles = 0;

  try {
    while (!overBudget() && report.violations.length === 0) {
      // The engineered kills come spread over the run, and are tried again (up to three times as many cycles as
      // wanted) until each phase has had its share.
      if (
        !phasesHit() &&
        cycles < 3 * cyclesWanted &&
        (report.kills >= spacing * (cycles + 1) || report.kills >= options.kills)
      ) {
        await compactionKill(cycles);
        if (report.violations.length === 0 && report.replayKills < options.replayKills)
          await replayKill(report.replayAttempts);
        cycles++;
        options.log?.(
          `cycle ${cycles}: ${report.midCompactionKills}/${report.compactionAttempts} compaction kills, ${report.replayKills}/${report.replayAttempts} replay kills`,
        );
        continue;
      }
      if (report.kills >= options.kills) break;
      const newestBefore = newestGeneration(files);
      if (random.chance(options.startupKillShare)) {
        const mock = startMockProcess(dir.db);
        await Promise.race([sleep(random.int(0, Math.round(startupMs))), mock.exited]);
        await killed(mock, newestBefore, `after start-up kill ${report.kills + 1}`);
        continue;
      }
      const { mock, url } = await restart();
      await underLoad(url, scripts, async () => {
        await sleep(random.int(options.loadMs[0], options.loadMs[1]));
        await kill(mock);
      });
      await killed(mock, newestBefore, `after kill ${report.kills + 1}`);
      options.log?.(`kill ${report.kills}: ${ledger.acknowledged} acknowledged, ${stats.statuses()}`);
    }

    for (
      let round = 0;
      round < options.sigterms && report.violations.length === 0 && !overBudget();
      round++
    ) {
      const { mock, url } = await restart();
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      await underLoad(url, scripts, async () => {
        await sleep(random.int(options.loadMs[0], options.loadMs[1]));
        mock.child.kill('SIGTERM');
        exit = await withTimeout(mock.exited, 15_000, 'the mock did not exit within 15 s of SIGTERM');
      });
      report.sigterms++;
      if (exit?.code !== 0)
        report.violations.push(`SIGTERM ${round + 1}: exit ${exit?.code} ${exit?.signal}: ${mock.stderr()}`);
      const stopped = await readDatabaseFiles(dir.db);
      if (stopped.files.includes('db.json.lock'))
        report.violations.push(`SIGTERM ${round + 1}: the lock is still there`);
      if (stopped.tornTailBytes > 0)
        report.violations.push(
          `SIGTERM ${round + 1}: the log ends in a torn line of ${stopped.tornTailBytes} bytes`,
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

/** The stale log the replay kill puts beside the database; if it were ever replayed, its group would show. */
const staleGeneration = 0;
const staleLogLine = `${JSON.stringify({
  op: 'putGroup',
  tenant: 'default',
  group: {
    environment: 'Customer',
    team_id: 999_999_999,
    token: 'e'.repeat(64),
    name: 'stale',
    provided_id: 'only-in-a-stale-log',
    mapping: null,
    properties: null,
  },
})}\n`;
/** A write a crash cut short: a last line without its newline. */
const tornLine = '{"op":"putGroup","tenant":"default","group":{"provided_id":"cut-short"';

/** The generation of a change log's file name (`db.json.log.<n>`), or undefined for any other file. */
function logGeneration(db: string, name: string): number | undefined {
  const prefix = `${basename(db)}.log.`;
  return name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length))
    ? Number(name.slice(prefix.length))
    : undefined;
}

/** The newest generation the files name (a fresh database starts at 1). */
const newestGeneration = (files: DatabaseFiles | undefined): number =>
  Math.max(files?.snapshotGeneration ?? 1, ...(files?.logGenerations ?? []));

/**
 * Whether the killed process `pid` had started a compaction (a log generation newer than `newestBefore`) and not
 * finished it: its snapshot temp file is there, or a log older than the newest is (a compaction removes them last).
 */
function compactionInterrupted(
  db: string,
  newestBefore: number,
  files: DatabaseFiles,
  pid: number | undefined,
): boolean {
  const generations = files.logGenerations.filter((g) => g !== staleGeneration);
  const newest = Math.max(...generations);
  if (!(newest > newestBefore)) return false;
  const temp = `.${basename(db)}.${pid}.`;
  return generations.some((g) => g < newest) || files.files.some((f) => f.startsWith(temp));
}

/**
 * Kills `mock` from the file-system event after which the names in `directory` first match, so that the kill
 * lands within the phase that event opens (checked once at once, then on every file created or removed).
 */
function killWhen(
  directory: string,
  matches: (names: readonly string[]) => boolean,
  mock: MockProcess,
): { readonly fired: Promise<void>; close(): void } {
  let fire: () => void = () => undefined;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  let done = false;
  const check = (): void => {
    if (done || !matches(readdirSync(directory))) return;
    done = true;
    mock.child.kill('SIGKILL');
    fire();
  };
  const watcher = watch(directory, (event) => {
    if (event === 'rename') check();
  });
  check();
  return {
    fired,
    close: () => {
      done = true;
      watcher.close();
    },
  };
}

/** Makes a tenant of its own for the filler, so that its group never meets the ledger's; returns its key. */
async function createTenant(url: string): Promise<string> {
  const pool = new Pool(url);
  try {
    const answer = await send(pool, {
      method: 'POST',
      path: '/__admin/tenants',
      headers: [],
      body: undefined,
    });
    const key = (answer.body as { api_keys?: { Customer?: unknown } } | undefined)?.api_keys?.Customer;
    if (answer.status !== 201 || typeof key !== 'string')
      throw new Error(`POST /__admin/tenants answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    return key;
  } finally {
    await pool.destroy();
  }
}

/**
 * Updates one group of the filler tenant over 16 connections until the mock dies: each acknowledged update is a
 * record in the change log. Stops at the first failed request; an answer other than 200 is a violation.
 */
async function pump(url: string, key: string, report: CrashReport): Promise<void> {
  const pool = new Pool(url, { connections: 16 });
  const group = { user_group_id: 'filler', name: 'filler' };
  let n = 0;
  let failed = false;
  const expect200 = async (operation: 'getOrCreateUserGroup' | 'updateUserGroup', body: object) => {
    const answer = await send(pool, apiRequest(operation, body, key));
    if (answer.status !== 200) {
      report.violations.push(`filler ${operation}: ${answer.status} ${answer.text.slice(0, 300)}`);
      failed = true;
    }
  };
  try {
    await expect200('getOrCreateUserGroup', group);
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (!failed) await expect200('updateUserGroup', { ...group, name: `filler ${n++}` });
      }),
    );
  } catch {
    // The kill: the connection failed.
  } finally {
    failed = true;
    await pool.destroy();
  }
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
  `crash (seed ${r.seed}): ${r.kills} kills (${r.startupKills} during start-up, ` +
  `${r.replayKills} of ${r.replayAttempts} aimed at the log replay landed in it, ` +
  `${r.midCompactionKills} mid-compaction after ${r.compactionAttempts} aimed at one), ` +
  `${r.sigterms} SIGTERMs, ${r.restarts} restarts, ${r.requests} requests, ${r.acknowledged} acknowledged changes kept, ` +
  `${r.unknownOutcomes} unanswered (${r.appliedUnknowns} applied), ${r.tokenChecks} token checks, ${r.violations.length} violations, ` +
  `${(r.elapsedMs / 1000).toFixed(1)} s`;
