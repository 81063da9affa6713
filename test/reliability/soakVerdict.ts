/** A count a soak scenario promised (`--scale` applied), and the count it reached before its time budget ran out. */
export interface PromisedCount {
  /** What is counted, plural: `valid runs`, `kills`. */
  readonly what: string;
  readonly promised: number;
  readonly done: number;
}

const number = (n: number): string => n.toLocaleString('en-US');
const duration = (ms: number): string =>
  ms >= 60_000 ? `${Number((ms / 60_000).toFixed(1))} min` : `${Number((ms / 1000).toFixed(1))} s`;

/**
 * The promises of one scenario it did not keep, one line each (`fuzz: only 27,412 of 100,000 valid runs
 * within its time budget of 50 min`); none when every count was reached. A time budget only bounds a run: running
 * out of it before the count is a failure of the soak, never a pass with less.
 */
export function shortfalls(
  scenario: string,
  counts: readonly PromisedCount[],
  timeBudgetMs?: number,
): string[] {
  const within = timeBudgetMs === undefined ? '' : ` within its time budget of ${duration(timeBudgetMs)}`;
  return counts
    .filter(({ promised, done }) => done < promised)
    .map(
      ({ what, promised, done }) =>
        `${scenario}: only ${number(done)} of ${number(promised)} ${what}${within}`,
    );
}

/** How the soak ends: exit code 0 only when nothing was violated and nothing fell short, and its last line. */
export function soakVerdict(
  violations: readonly string[],
  shortfallLines: readonly string[],
): { readonly exitCode: number; readonly line: string } {
  if (violations.length === 0 && shortfallLines.length === 0)
    return { exitCode: 0, line: 'soak: all promises held' };
  const counted = (n: number, noun: string): string[] =>
    n === 0 ? [] : [`${n} ${noun}${n === 1 ? '' : 's'}`];
  const parts = [...counted(violations.length, 'violation'), ...counted(shortfallLines.length, 'shortfall')];
  return { exitCode: 1, line: `soak: FAILED: ${parts.join(', ')} (listed above)` };
}
