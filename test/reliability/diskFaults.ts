import { Pool } from 'undici';
import { createMockServer } from '../../src/index.js';
import { differences, memoryGroups, readDatabaseFiles } from '../support/dbFiles.js';
import { type Errno, type FaultSite, FaultyFileSystem } from '../support/faultyFiles.js';
import { Ledger } from '../support/ledger.js';
import { Random } from '../support/random.js';
import { tempDir } from '../support/tempDir.js';
import { ClientScript, WorkloadStats } from '../support/workload.js';

export interface SweepOptions {
  /** The fault strikes the 1st, 2nd, ... `positions`-th call at each site. */
  readonly positions: number;
  readonly sites: readonly FaultSite[];
  readonly clients: number;
  readonly stepsPerClient: number;
  readonly seed: number;
}

export interface SweepReport {
  runs: number;
  struck: number;
  internalErrors: number;
  acknowledged: number;
  readonly violations: string[];
}

/**
 * Group commits under disk faults: concurrent clients create, update and rotate while the Nth write (or fdatasync)
 * of the change log fails. Every request answers 200 or 500; after the run, memory equals the files, every
 * acknowledged change is stored, every refused one is not, and a restart sees the same groups.
 */
export async function runDiskFaultSweep(options: SweepOptions): Promise<SweepReport> {
  const report: SweepReport = { runs: 0, struck: 0, internalErrors: 0, acknowledged: 0, violations: [] };
  const random = new Random(options.seed);
  for (const site of options.sites) {
    for (let nth = 1; nth <= options.positions && report.violations.length === 0; nth++) {
      const dir = await tempDir('sweep');
      const files = new FaultyFileSystem();
      const code = random.pick<Errno>(['ENOSPC', 'EIO']);
      files.fail(site, { code, nth, partial: random.chance(0.5) });
      const server = await createMockServer({ db: dir.db, files });
      let open = true;
      const where = `${site} #${nth} ${code}`;
      try {
        const ledger = new Ledger();
        const stats = new WorkloadStats();
        const pool = new Pool(server.url, { connections: options.clients });
        const clients = Array.from(
          { length: options.clients },
          (_, i) =>
            new ClientScript(`c${i}`, ledger, new Random(random.int(1, 2 ** 31)), stats, {
              groupsPerClient: 3,
              invalidShare: 0,
              internalErrorsExpected: true,
            }),
        );
        await Promise.all(
          clients.map(async (client) => {
            for (let step = 0; step < options.stepsPerClient; step++) await client.step(pool);
          }),
        );
        await pool.close();
        report.struck += files.struck;
        report.internalErrors += stats.internalErrors;
        report.acknowledged += ledger.acknowledged;
        const memory = await memoryGroups(server);
        const disk = (await readDatabaseFiles(dir.db)).groups;
        report.violations.push(
          ...stats.violations.map((v) => `${where}: ${v}`),
          ...differences(`${where}: memory vs disk`, memory, disk),
          ...ledger.reconcile(disk).map((v) => `${where}: ${v}`),
        );
        if (files.struck === 1 && stats.internalErrors === 0)
          report.violations.push(`${where}: the fault struck but no request answered 500`);
        open = false;
        await server.close();
        const again = await createMockServer({ db: dir.db });
        report.violations.push(
          ...differences(`${where}: before vs after restart`, memory, await memoryGroups(again)),
        );
        await again.close();
      } finally {
        if (open) await server.close();
        await dir.remove();
      }
      report.runs++;
    }
  }
  return report;
}
