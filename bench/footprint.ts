import { stat } from 'node:fs/promises';
import type { Settings } from './config.js';
import { withTempDb, writeDatabase } from './dbfile.js';
import { idleRssMb } from './memory.js';
import { flagsOnlyEnv, oursEnv, oursMissing, startOurs } from './ours.js';
import { startPrism } from './prism.js';
import { type ServerProcess, spawnServer } from './proc.js';
import { measureStartup } from './startup.js';
import { notAvailable, type Row } from './table.js';
import { judge, TARGETS } from './targets.js';

/** A bare node:http server answering 200 at once: the part of any start-up that is Node's own. */
const BARE_SERVER = `import { createServer } from 'node:http';
const server = createServer((req, res) => { req.resume(); req.on('end', () => res.end('{}')); });
server.listen(0, '127.0.0.1', () => console.log('bare listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));`;

const startBare = (): Promise<ServerProcess> =>
  spawnServer({
    name: 'bare node:http',
    command: process.execPath,
    args: ['--input-type=module', '--eval', BARE_SERVER],
    readyLine: /^bare listening on (http:\/\/\S+)$/,
    env: oursEnv,
  });

/**
 * Launch to first 200 of a GET get-or-create, median of `startupRuns`: ours (judged), a bare node:http server
 * (Node's own share) and Prism, all CLI processes, without NODE_EXTRA_CA_CERTS (see `withoutExtraCerts` in
 * proc.ts); when the environment sets it, ours once more with it.
 */
export async function startupRows(settings: Settings): Promise<Row[]> {
  const row = async (who: string, start: () => Promise<ServerProcess>, missing?: string): Promise<Row> => {
    const name = `start-up ${who} (median of ${settings.startupRuns})`;
    if (missing !== undefined) return notAvailable(name, missing);
    try {
      const { medianMs, samplesMs } = await measureStartup(
        start,
        settings.startupRuns,
        settings.startupBudgetMs,
      );
      const runs = samplesMs.map((ms) => ms.toFixed(0)).join(', ');
      const cut = samplesMs.length < settings.startupRuns ? ' (time budget spent)' : '';
      return { name, value: medianMs, unit: 'ms', note: `runs: ${runs}${cut}` };
    } catch (error) {
      return notAvailable(name, (error as Error).message);
    }
  };
  const oursMissingWhy = oursMissing();
  const extraCerts = process.env.NODE_EXTRA_CA_CERTS;
  return [
    judge(await row('ours', () => startOurs(), oursMissingWhy), TARGETS.startup),
    await row('bare node:http', startBare),
    ...(extraCerts
      ? [
          await row(
            `ours with NODE_EXTRA_CA_CERTS=${extraCerts}`,
            () => startOurs(undefined, undefined, flagsOnlyEnv),
            oursMissingWhy,
          ),
        ]
      : []),
    await row('Prism', () => startPrism(oursEnv)),
  ];
}

/** Start-up time and RSS of ours with a million groups in its database file. */
export async function millionRows(settings: Settings): Promise<Row[]> {
  const names = ['start-up ours, 1M groups stored', 'RSS ours, 1M groups stored'] as const;
  const failed = (reason: string) => [
    notAvailable(names[0], reason),
    judge(notAvailable(names[1], reason), TARGETS.millionRss),
  ];
  if (!settings.million) return failed('skipped in --quick');
  const missing = oursMissing();
  if (missing !== undefined) return failed(missing);
  try {
    return await withTempDb(async (db) => {
      const seconds = await writeDatabase(db, 'seed', 1_000_000);
      const megabytes = (await stat(db)).size / 1024 / 1024;
      const note = `${megabytes.toFixed(0)} MB file written in ${seconds.toFixed(1)} s`;
      const server = await startOurs(db, 180_000);
      try {
        const rss = await idleRssMb(server.pid, 2_000);
        return [
          { name: names[0], value: server.startupMs, unit: 'ms', note },
          judge({ name: names[1], value: rss, unit: 'MB' }, TARGETS.millionRss),
        ];
      } finally {
        await server.stop();
      }
    });
  } catch (error) {
    return failed((error as Error).message);
  }
}
