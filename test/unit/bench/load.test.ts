import { describe, expect, it } from 'vitest';
import { combine, inTurn, loadResult, pairedRound } from '../../../bench/load.js';

describe('combine', () => {
  it('pools the latencies of every run, also of runs that were themselves combined', () => {
    const slices = [loadResult([1, 2], 1, 0, 0), loadResult([3, 4], 1, 0, 0)];
    const round = combine(slices);
    const rounds = combine([round, loadResult([5, 6, 7, 8], 1, 0, 0)]);
    expect(round).toMatchObject({ p50: 2, p99: 4, requests: 4 });
    expect(rounds).toMatchObject({ p50: 4, p99: 8, requests: 8 });
  });
});

describe('inTurn', () => {
  it('runs two targets in ABBA order, each first in as many pairs as the other', () => {
    expect(inTurn('a', 'b', 4).join('')).toBe('abbaabba');
    expect(inTurn('a', 'b', 4, 1).join('')).toBe('baabbaab');
    for (const round of [0, 1]) {
      const order = inTurn('a', 'b', 4, round);
      const firsts = order.filter((_, i) => i % 2 === 0);
      expect(firsts.filter((x) => x === 'a')).toHaveLength(2);
    }
  });
});

describe('pairedRound', () => {
  it('runs both sides in turn for a slice of the time each, and drops a side of which a run failed', async () => {
    const order: string[] = [];
    const [a, b] = await pairedRound('a', 'b', 4, 0, 2, async (side, seconds) => {
      order.push(`${side}${seconds}`);
      return side === 'b' && order.length === 3 ? undefined : loadResult([1], seconds, 0, 0);
    });
    expect(order).toEqual(['a0.5', 'b0.5', 'b0.5', 'a0.5', 'a0.5', 'b0.5', 'b0.5', 'a0.5']);
    expect(a?.requests).toBe(4);
    expect(b).toBeUndefined();
  });
});
