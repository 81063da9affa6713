import { describe, expect, it } from 'vitest';
import { cryptoIds, seededIds } from '../../../src/domain/ids.js';

describe('cryptoIds', () => {
  it('hands out each random byte once, across refills of its pool', () => {
    // 4 KiB a pool: 1,000 draws of each kind go through several refills, and a refill cut short would repeat.
    const drawn = Array.from({ length: 1_000 }, () => [
      cryptoIds.token(),
      cryptoIds.tenantId(),
      cryptoIds.apiKey(),
    ]);
    const tokens = drawn.map(([token]) => token);
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const [token, tenantId, apiKey] of drawn) {
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      expect(tenantId).toMatch(/^t-[0-9a-f]{12}$/);
      expect(apiKey).toMatch(/^key-[0-9a-f]{32}$/);
    }
    const bytes = tokens.join('').match(/../g) ?? [];
    const counts = new Map<string, number>();
    for (const byte of bytes) counts.set(byte, (counts.get(byte) ?? 0) + 1);
    // 32,000 bytes over 256 values: about 125 each; a pool not refilled (all zeros, or one slice over and over) is far off.
    expect(counts.size).toBe(256);
    expect(Math.max(...counts.values())).toBeLessThan(250);
  });
});

describe('seededIds', () => {
  it('draws the same ids for the same seed', () => {
    const [a, b] = [seededIds(7), seededIds(7)];
    expect([a.token(), a.tenantId(), a.apiKey()]).toEqual([b.token(), b.tenantId(), b.apiKey()]);
  });
});
