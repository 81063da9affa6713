import { describe, expect, it } from 'vitest';
import { Faults } from '../../../src/store/faults.js';

describe('Faults', () => {
  it('keeps at most 1,000 pending faults, dropping the oldest', () => {
    const faults = new Faults();
    for (let i = 0; i < 1003; i++) faults.add({ status: 500 });
    expect(faults.list()).toHaveLength(1000);
    expect(faults.list()[0]?.id).toBe(4);
  });
});
