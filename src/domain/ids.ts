import { createHash, randomBytes } from 'node:crypto';

/** Where new tokens and tenant ids come from: crypto by default, a seeded sequence for snapshot tests. */
export interface IdSource {
  /** 64 lowercase hex characters. */
  token(): string;
  tenantId(): string;
  apiKey(): string;
}

export const cryptoIds: IdSource = {
  token: () => randomBytes(32).toString('hex'),
  tenantId: () => `t-${randomBytes(6).toString('hex')}`,
  apiKey: () => `key-${randomBytes(16).toString('hex')}`,
};

/** Deterministic ids: the n-th token of seed s is always the same, so snapshot tests can pin them. */
export function seededIds(seed: number): IdSource {
  let counter = 0;
  const next = (): string =>
    createHash('sha256').update(`user-group-mock:${seed}:${counter++}`).digest('hex');
  return {
    token: next,
    tenantId: () => `t-${next().slice(0, 12)}`,
    apiKey: () => `key-${next().slice(0, 32)}`,
  };
}
