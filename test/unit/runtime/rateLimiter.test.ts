import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/runtime/rateLimiter.js';

describe('RateLimiter', () => {
  it('forgets the counts of one tenant only', () => {
    const limiter = new RateLimiter(1, () => 0);
    for (const caller of ['t1/Customer', 't1/Testing', 't10/Customer', 'default/Customer'])
      limiter.take(caller);
    limiter.forgetTenant('t1');
    expect(
      ['t1/Customer', 't1/Testing', 't10/Customer', 'default/Customer'].map((c) => limiter.take(c)),
    ).toEqual([undefined, undefined, 60, 60]);
  });
});
