import { describe, expect, it } from 'vitest';
import { cells, HEADER } from '../../../bench/table.js';

describe('the benchmark table', () => {
  it('shows a ratio below 1 with three decimals, so that a miss by less than 0.005 does not read as met', () => {
    const row = cells({ name: 'ours', vsCeiling: 0.8472, vsPrism: 9.081 });
    expect(row[HEADER.indexOf('ours/ceiling')]).toBe('0.847×');
    expect(row[HEADER.indexOf('ours/Prism')]).toBe('9.08×');
  });
});
