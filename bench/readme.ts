import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './config.js';
import { type BenchResults, describeMachine } from './results.js';
import { cells, HEADER, type Row, status } from './table.js';

export const readmeFile = join(ROOT, 'README.md');
export const START = '<!-- bench:start -->';
export const END = '<!-- bench:end -->';

/**
 * The rows as a Markdown table: the columns of `npm run bench`'s table but its notes (which stay in
 * bench/results.json), figures right-aligned.
 */
export function markdownTable(rows: readonly Row[]): string {
  const line = (values: readonly string[]) =>
    `| ${values.map((v) => v.replaceAll('|', '\\|')).join(' | ')} |`;
  return [
    line([...HEADER, 'target', 'status']),
    line([':--', ...HEADER.slice(1).map(() => '--:'), ':--', ':--']).replaceAll(' ', ''),
    // A row that could not be measured says why in place of a status.
    ...rows.map((row) => line([...cells(row), row.target ?? '', status(row) || naReason(row)])),
  ].join('\n');
}

const naReason = (row: Row): string => (row.note?.startsWith('n/a') ? row.note : '');

/** The README's benchmark block: when and where the run was made, then its table. */
export function benchSection(results: BenchResults): string {
  const run = results.settings.quick
    ? 'quick run (`npm run bench -- --quick`)'
    : 'full run (`npm run bench`)';
  return [
    `Latest ${run}, ${results.date.slice(0, 10)}, on ${describeMachine(results)}:`,
    '',
    markdownTable(results.rows),
  ].join('\n');
}

/** `readme` with the text between its bench markers replaced by the block `results` give. */
export function withBenchSection(readme: string, results: BenchResults): string {
  return between(readme, 'README.md', START, END, benchSection(results));
}

export const scalingFile = join(ROOT, 'docs', 'scaling.md');
export const SCALING_START = '<!-- bench:scaling:start -->';
export const SCALING_END = '<!-- bench:scaling:end -->';

/** The stores' rows docs/scaling.md compares, as it names them, and the rows of the run they come from. */
const scalingRows: readonly (readonly [label: string, row: string])[] = [
  ['file store @10k', 'ours durable create @10k'],
  ['file store @100k', 'ours durable create @100k'],
  ['PostgreSQL @10k, 1 replica', 'ours PostgreSQL create @10k, 1 replica'],
  ['PostgreSQL @10k, 2 replicas', 'ours PostgreSQL create @10k, 2 replicas'],
  ['PostgreSQL @100k, 1 replica', 'ours PostgreSQL create @100k, 1 replica'],
  ['PostgreSQL @100k, 2 replicas', 'ours PostgreSQL create @100k, 2 replicas'],
];

/** docs/scaling.md's block: the creates of the README's run on each store, as that table shows them. */
export function scalingSection(results: BenchResults): string {
  const lines = scalingRows.map(([label, name]) => {
    const row = results.rows.find((r) => r.name === name);
    if (row?.load === undefined) throw new Error(`bench/results.json has no load row "${name}"`);
    const [, rps, p50, p99] = cells(row);
    return `| ${label} | ${rps} | ${p50} | ${p99} |`;
  });
  return [
    `The run the README's table shows (${results.date.slice(0, 10)}, load average ${results.machine.loadAverage.toFixed(2)} at start), the file store beside PostgreSQL:`,
    '',
    '| | creates/s | p50 ms | p99 ms |',
    '| --- | --: | --: | --: |',
    ...lines,
  ].join('\n');
}

/** docs/scaling.md with the text between its bench markers replaced by the block `results` give. */
export function withScalingSection(scaling: string, results: BenchResults): string {
  return between(scaling, 'docs/scaling.md', SCALING_START, SCALING_END, scalingSection(results));
}

/** `text` with `block` between its markers `start` and `end`. */
function between(text: string, file: string, start: string, end: string, block: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  if (from < 0 || to < 0)
    throw new Error(`${file} has no ${start} ... ${end} markers to put the benchmark figures between`);
  return `${text.slice(0, from + start.length)}\n${block}\n${text.slice(to)}`;
}

/** Writes the blocks `results` give into README.md and docs/scaling.md. */
export function publishToReadme(results: BenchResults): void {
  for (const [file, name, write] of [
    [readmeFile, 'README.md', withBenchSection],
    [scalingFile, 'docs/scaling.md', withScalingSection],
  ] as const) {
    const text = readFileSync(file, 'utf8');
    const updated = write(text, results);
    if (updated !== text) writeFileSync(file, updated);
    console.log(`${name} ${updated === text ? 'already shows' : 'now shows'} the run of ${results.date}`);
  }
}
