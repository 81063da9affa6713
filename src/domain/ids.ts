import { createHash, randomFillSync } from 'node:crypto';

/** Where new tokens and tenant ids come from: crypto by default, a seeded sequence for snapshot tests. */
export interface IdSource {
  /** 64 lowercase hex characters. */
  token(): string;
  tenantId(): string;
  apiKey(): string;
}

/**
 * Random bytes drawn from the system's CSPRNG 4 KiB at a time, as Node's own `randomUUID` does: a token is then a
 * slice of the pool (about 0.15 µs) rather than a call into the CSPRNG of its own (about 5 µs, a few per cent of a
 * create's CPU in a replica: decision 17). Each byte is handed out once.
 */
const pool = Buffer.alloc(4096);
let drawn = pool.length;

/** `bytes` fresh random bytes as lowercase hex. */
function randomHex(bytes: number): string {
  if (drawn + bytes > pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  drawn += bytes;
  return pool.toString('hex', drawn - bytes, drawn);
}

export const cryptoIds: IdSource = {
  token: () => randomHex(32),
  tenantId: () => `t-${randomHex(6)}`,
  apiKey: () => `key-${randomHex(16)}`,
};

/** A seeded sequence that a store already holding data moves onto one of its own (`continueAfter`). */
export interface SeededIds extends IdSource {
  /**
   * Continues on the sequence of `state` (what the store holds, as a digest), from its start: a mock restarted on its
   * own database does not draw again the values the earlier run drew, which its groups and tenants still hold.
   */
  continueAfter(state: string): void;
}

/**
 * Deterministic ids: the n-th token of seed s is always the same on a fresh store, so snapshot tests can pin them;
 * on a store that holds data, the n-th of the sequence that state and s make.
 */
export function seededIds(seed: number): SeededIds {
  let prefix = `user-group-mock:${seed}:`;
  let counter = 0;
  const next = (): string => createHash('sha256').update(`${prefix}${counter++}`).digest('hex');
  return {
    token: next,
    tenantId: () => `t-${next().slice(0, 12)}`,
    apiKey: () => `key-${next().slice(0, 32)}`,
    continueAfter(state) {
      prefix = `user-group-mock:${seed}:${state}:`;
      counter = 0;
    },
  };
}
