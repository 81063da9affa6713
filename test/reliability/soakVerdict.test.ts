import { describe, expect, it } from 'vitest';
import { shortfalls, soakVerdict } from './soakVerdict.js';

describe('the soak verdict', () => {
  it('names each count that fell short of its promise, and the budget it ran out of', () => {
    const counts = [
      { what: 'valid runs', promised: 100_000, done: 27_412 },
      { what: 'mutated runs', promised: 1_000_000, done: 1_000_000 },
    ];
    expect(shortfalls('fuzz', counts, 50 * 60_000)).toEqual([
      'fuzz: only 27,412 of 100,000 valid runs within its time budget of 50 min',
    ]);
  });

  it('finds no shortfall when every promised count was reached', () => {
    expect(shortfalls('crash', [{ what: 'kills', promised: 300, done: 300 }], 45 * 60_000)).toEqual([]);
  });

  it('fails the soak on a shortfall alone, saying so', () => {
    const short = shortfalls('crash', [{ what: 'kills', promised: 300, done: 75 }], 45 * 60_000);
    expect(soakVerdict([], short)).toEqual({
      exitCode: 1,
      line: 'soak: FAILED: 1 shortfall (listed above)',
    });
  });

  it('fails the soak on a violation, and passes only with neither', () => {
    expect(soakVerdict(['load: 1 5xx'], []).exitCode).toBe(1);
    expect(soakVerdict([], [])).toEqual({ exitCode: 0, line: 'soak: all promises held' });
  });
});
