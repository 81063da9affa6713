import type autocannon from 'autocannon';
import type { Settings } from './config.js';
import { type Contenders, type Started, startContenders, stopContenders } from './contenders.js';
import { combine, type LoadResult, median, pairedRound, runLoad } from './load.js';
import { idleRssMb } from './memory.js';
import { seedTokens } from './seed.js';
import { int, notAvailable, type Row } from './table.js';
import { judge, TARGETS } from './targets.js';
import { createNew, getExisting, rotate, update } from './workloads.js';

interface Job {
  label: string;
  started: Started;
  /** Called before each run (warm-up included). */
  requests: (url: string) => autocannon.Request[] | Promise<autocannon.Request[]>;
  seconds: number;
}

/**
 * GET get-or-create on ceiling and ours (in ABBA slices) and Prism, in rounds; ours' other operations on a second
 * process of ours, then get-or-create once more there, with what they stored; RSS.
 */
export async function throughputRows(settings: Settings): Promise<Row[]> {
  const contenders = await startContenders();
  try {
    return await measure(settings, contenders);
  } finally {
    await stopContenders(contenders);
  }
}

async function measure(settings: Settings, { ceiling, ours, oursWrites, prism }: Contenders): Promise<Row[]> {
  const [oursIdleRow, prismIdle] = await Promise.all([
    rssRow('RSS ours idle', ours),
    rssRow('RSS Prism idle', prism),
  ]);
  const oursIdle = judge(oursIdleRow, TARGETS.idleRss);
  const get = (label: string, started: Started): Job => ({
    label,
    started,
    requests: getExisting,
    seconds: settings.getSeconds,
  });
  const ceilingJob = get('ceiling GET (bare node:http)', ceiling);
  const oursJob = get('ours in-memory get-or-create (existing)', ours);
  const prismJob = get('Prism static mock GET', prism);
  const gets = [ceilingJob, oursJob, prismJob];
  const op = (label: string, requests: Job['requests']): Job => ({
    label,
    started: oursWrites,
    requests,
    seconds: settings.opSeconds,
  });
  let batch = 0;
  let renamed: Promise<string[]> | undefined;
  const ops = [
    op('ours in-memory create (new ids)', () => createNew(`bench-${batch++}`)),
    // Renames groups of its own (see `update`); seeding them once is enough, since a rename keeps the group.
    op('ours in-memory update (PUT)', async (url) => {
      renamed ??= seedTokens(url, 'renamed', settings.connections);
      await renamed;
      return update('renamed', settings.connections);
    }),
    // A run's last in-flight rotations take their tokens with them: each run gets fresh groups to rotate.
    op('ours in-memory rotate (POST)', async (url) =>
      rotate(await seedTokens(url, `rotate-${batch++}`, 2 * settings.connections)),
    ),
  ];
  /** Each job's result by round (undefined where a run failed), so that rounds can be paired. */
  const results = new Map<Job, Array<LoadResult | undefined>>();
  const failures = new Map<Job, string>();
  const keep = (job: Job, round: number, result: LoadResult | undefined) => {
    const byRound = results.get(job) ?? [];
    byRound[round] = result;
    results.set(job, byRound);
  };
  const attempt = (job: Job, seconds: number) =>
    run(job, seconds, settings.connections).catch((error: Error) => void failures.set(job, error.message));
  for (const job of [...gets, ...ops]) await attempt(job, settings.warmupSeconds);
  for (let round = 0; round < settings.rounds; round++) {
    // Ceiling and ours in turn, in short slices ordered ABBA: the two halves of the round's ratio are measured
    // under the same machine conditions, where one run each, seconds apart, carried the machine's drift into it.
    const [ceilingRound, oursRound] = await pairedRound(
      ceilingJob,
      oursJob,
      settings.slices,
      round,
      settings.getSeconds,
      attempt,
    );
    keep(ceilingJob, round, ceilingRound);
    keep(oursJob, round, oursRound);
    for (const job of [prismJob, ...ops]) keep(job, round, await attempt(job, job.seconds));
  }
  const measured = (job: Job): LoadResult[] =>
    (results.get(job) ?? []).filter((result): result is LoadResult => result !== undefined);
  const row = (job: Job): Row => {
    const rounds = measured(job);
    if (rounds.length > 0) return { name: job.label, load: combine(rounds) };
    const reason = 'reason' in job.started ? job.started.reason : failures.get(job);
    return notAvailable(job.label, reason ?? 'no result');
  };
  const ceilingRow = row(ceilingJob);
  const oursRow = row(oursJob);
  const prismRow = row(prismJob);
  // Within a round, ours and the other server ran seconds apart: the ratio of each round cancels the
  // machine's drift, and the median of them ignores a round disturbed by something else on the machine.
  const ratios = (other: Job): number[] => {
    const theirs = results.get(other) ?? [];
    return (results.get(oursJob) ?? []).flatMap((ours, round) => {
      const their = theirs[round];
      return ours && their ? [ours.rps / their.rps] : [];
    });
  };
  const [vsCeiling, vsPrism] = [ratios(ceilingJob), ratios(prismJob)];
  const ratio = (byRound: number[]) => (byRound.length > 0 ? median(byRound) : undefined);
  const listed = (byRound: number[]) => byRound.map((r) => r.toFixed(2)).join(', ');
  const opRows = ops.map(row);
  const created = opRows[0]?.load?.requests ?? 0;
  const rotations = opRows[2]?.load?.requests ?? 0;
  // The same get-or-create on the process that served the write rows, in turn with the process that served only
  // get-or-create (ABBA slices, one round): what a store grown that large costs.
  const grownJob = get('ours in-memory get-or-create (existing), after the write rows', oursWrites);
  const [alone, grown] = await pairedRound(
    oursJob,
    grownJob,
    settings.slices,
    0,
    settings.getSeconds,
    attempt,
  );
  const afterLoad = await rssRow('RSS ours after load', oursWrites);
  return [
    ceilingRow,
    prismRow,
    judge(
      {
        ...oursRow,
        vsCeiling: ratio(vsCeiling),
        vsPrism: ratio(vsPrism),
        note: `ratios are medians of rounds; by round: ${listed(vsCeiling)} (ceiling), ${listed(vsPrism)} (Prism)`,
      },
      TARGETS.getOrCreate,
    ),
    ...opRows,
    grown === undefined
      ? row(grownJob)
      : {
          name: grownJob.label,
          load: grown,
          note: [
            alone === undefined
              ? undefined
              : `${(grown.rps / alone.rps).toFixed(2)}× the get-or-create process of the rounds, in ABBA slices with it`,
            `after ${int(created)} creates and ${int(rotations)} rotations (measured runs)`,
          ]
            .filter((part) => part !== undefined)
            .join('; '),
        },
    oursIdle,
    afterLoad.value === undefined
      ? afterLoad
      : {
          ...afterLoad,
          note: `after ${int(created)} creates and ${int(rotations)} rotations (measured runs)`,
        },
    prismIdle,
  ];
}

async function run(job: Job, seconds: number, connections: number): Promise<LoadResult | undefined> {
  if (!('server' in job.started)) return undefined;
  const url = job.started.server.url;
  return runLoad({ url, requests: await job.requests(url), seconds, connections });
}

async function rssRow(name: string, started: Started): Promise<Row> {
  if (!('server' in started)) return notAvailable(name, started.reason);
  return { name, value: await idleRssMb(started.server.pid), unit: 'MB' };
}
