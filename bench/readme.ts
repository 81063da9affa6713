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
  const start = readme.indexOf(START);
  const end = readme.indexOf(END, start);
  if (start < 0 || end < 0)
    throw new Error(`README.md has no ${START} ... ${END} markers to put the benchmark table between`);
  return `${readme.slice(0, start + START.length)}\n${benchSection(results)}\n${readme.slice(end)}`;
}

/** Writes the block `results` give into README.md. */
export function publishToReadme(results: BenchResults): void {
  const readme = readFileSync(readmeFile, 'utf8');
  const updated = withBenchSection(readme, results);
  if (updated !== readme) writeFileSync(readmeFile, updated);
  console.log(`README.md ${updated === readme ? 'already shows' : 'now shows'} the run of ${results.date}`);
}
