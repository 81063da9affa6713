import type { LoadResult } from './load.js';

/** One line of the report. Load rows carry `load`; single-figure rows carry `value` and `unit`. */
export interface Row {
  name: string;
  load?: LoadResult;
  value?: number;
  unit?: string;
  vsCeiling?: number;
  vsPrism?: number;
  target?: string;
  /** true met, false missed, undefined not judged. */
  met?: boolean;
  note?: string;
}

/** A row that could not be measured. */
export const notAvailable = (name: string, reason: string): Row => ({ name, note: `n/a: ${reason}` });

export const HEADER = [
  'benchmark',
  'req/s',
  'p50 ms',
  'p99 ms',
  'non-2xx',
  'errors',
  'value',
  'ours/ceiling',
  'ours/Prism',
];
const TAIL = ['target', 'status', 'note'];

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (!Number.isFinite(n) ? 'none' : n < 10 ? n.toFixed(2) : n.toFixed(0));
// Below 1, three decimals: 0.847× rounded to 0.85× would read as meeting a ≥0.85× target it missed.
const ratio = (n?: number) => (n === undefined ? '' : `${n.toFixed(n < 1 ? 3 : 2)}×`);
const figure = (n: number) => (n < 10 ? n.toFixed(2) : n < 1_000 ? n.toFixed(1) : int(n));

export function status(row: Row): string {
  if (row.target === undefined) return '';
  return row.met === undefined ? 'n/a' : row.met ? 'met' : 'missed';
}

/** The cells of one line under HEADER (the figures as the table shows them). */
export function cells(row: Row): string[] {
  const load = row.load;
  const numbers = load
    ? [int(load.rps), ms(load.p50), ms(load.p99), int(load.non2xx), int(load.errors)]
    : ['', '', '', '', ''];
  const value = row.value === undefined ? (row.load ? '' : 'n/a') : `${figure(row.value)} ${row.unit ?? ''}`;
  return [row.name, ...numbers, value.trim(), ratio(row.vsCeiling), ratio(row.vsPrism)];
}

/** Plain-text table; numeric columns right-aligned, text left-aligned. */
export function renderTable(rows: readonly Row[]): string {
  const lines = [
    [...HEADER, ...TAIL],
    ...rows.map((row) => [...cells(row), row.target ?? '', status(row), row.note ?? '']),
  ];
  const widths = lines[0]?.map((_, col) => Math.max(...lines.map((line) => (line[col] ?? '').length))) ?? [];
  const leftAligned = new Set([0, HEADER.length, HEADER.length + 1, HEADER.length + 2]);
  const format = (line: string[]) =>
    line
      .map((cell, col) =>
        leftAligned.has(col) ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const [head, ...body] = lines.map(format);
  return [head, rule, ...body].join('\n');
}
