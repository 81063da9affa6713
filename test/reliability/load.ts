import { Pool } from 'undici';
import { createMockServer } from '../../src/index.js';
import { differences, memoryGroups, readDatabaseFiles } from '../support/dbFiles.js';
import { Ledger } from '../support/ledger.js';
import { Random } from '../support/random.js';
import { tempDir } from '../support/tempDir.js';
import { ClientScript, WorkloadStats } from '../support/workload.js';

export interface LoadOptions {
  readonly requests: number;
  readonly connections: number;
  /** Share of requests that are broken (refused with their documented 4xx, changing nothing). */
  readonly invalidShare: number;
  readonly groupsPerClient: number;
  readonly timeBudgetMs: number;
  readonly seed: number;
}

export interface LoadReport {
  readonly seed: number;
  requests: number;
  invalid: number;
  statuses: string;
  operations: string;
  acknowledged: number;
  groups: number;
  /** Connections the pool opened, and lost while the run was under way. */
  connects: number;
  disconnects: number;
  transportErrors: number;
  serverErrors: number;
  readonly violations: string[];
  elapsedMs: number;
}

/**
 * Load: `connections` clients over one keep-alive connection each mix get-or-create, reads, updates, rotations and
 * broken requests against a mock with a database file. Every answer is checked against the document and the
 * ledger; at the end memory, the files and a restarted mock all equal the sum of the acknowledged changes.
 */
export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const started = performance.now();
  const dir = await tempDir('load');
  const server = await createMockServer({ db: dir.db });
  const pool = new Pool(server.url, { connections: options.connections, pipelining: 1 });
  const ledger = new Ledger();
  const stats = new WorkloadStats();
  const random = new Random(options.seed);
  let connects = 0;
  let disconnects = 0;
  let transportErrors = 0;
  pool.on('connect', () => connects++);
  pool.on('disconnect', () => disconnects++);
  let issued = 0;
  let closed = false;
  const deadline = started + options.timeBudgetMs;
  const violations: string[] = [];
  try {
    const clients = Array.from(
      { length: options.connections },
      (_, i) =>
        new ClientScript(`load${i}`, ledger, new Random(random.int(1, 2 ** 31)), stats, {
          groupsPerClient: options.groupsPerClient,
          invalidShare: options.invalidShare,
        }),
    );
    await Promise.all(
      clients.map(async (client) => {
        while (issued < options.requests && performance.now() < deadline) {
          issued++;
          try {
            await client.step(pool);
          } catch (error) {
            transportErrors++;
            if (violations.length < 10) violations.push(`transport error: ${(error as Error).message}`);
          }
        }
      }),
    );
    const during = disconnects;
    await pool.close();
    disconnects = during;
    const memory = await memoryGroups(server);
    const disk = await readDatabaseFiles(dir.db);
    violations.push(
      ...stats.violations,
      ...differences('acknowledged vs memory', ledger.expected(), memory),
      ...differences('memory vs disk', memory, disk.groups),
      ...ledger.reconcile(disk.groups),
    );
    closed = true;
    await server.close();
    const again = await createMockServer({ db: dir.db });
    violations.push(...differences('before vs after restart', memory, await memoryGroups(again)));
    await again.close();
    return {
      seed: options.seed,
      requests: stats.requests,
      invalid: stats.invalid,
      statuses: stats.statuses(),
      operations: [...stats.byOperation].map(([op, n]) => `${op}:${n}`).join(' '),
      acknowledged: ledger.acknowledged,
      groups: memory.size,
      connects,
      disconnects,
      transportErrors,
      serverErrors: [...stats.byStatus].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0),
      violations,
      elapsedMs: Math.round(performance.now() - started),
    };
  } finally {
    if (!closed) {
      await pool.destroy();
      await server.close();
    }
    await dir.remove();
  }
}

/** One line of counts, printed by the test and by the soak. */
export const describeLoad = (r: LoadReport): string =>
  `load (seed ${r.seed}): ${r.requests} requests over ${r.connects} connections in ${(r.elapsedMs / 1000).toFixed(1)} s ` +
  `(${Math.round(r.requests / (r.elapsedMs / 1000))}/s); statuses ${r.statuses}; ${r.invalid} broken requests; ` +
  `${r.acknowledged} acknowledged changes over ${r.groups} groups; ${r.serverErrors} 5xx, ${r.disconnects} dropped connections, ` +
  `${r.transportErrors} transport errors, ${r.violations.length} violations`;
