import { LRUCache } from 'lru-cache';

/**
 * The keys the database did not know, remembered for a while: a client sending a wrong key on every request costs
 * the database one look-up per key and `ttl`, not one per request. Bounded (the least recently used are forgotten
 * first), so a flood of distinct wrong keys costs memory for `max` of them at most. Emptied when this replica makes
 * a tenant or seeds a group (a key or token it may have remembered as unknown); a key made through another replica
 * is one nobody had sent before (keys and tokens are random), and is known here within `ttl` at worst.
 */
export class KeyMisses {
  readonly #keys: LRUCache<string, true>;

  constructor(max = 10_000, ttl = 5_000) {
    this.#keys = new LRUCache({ max, ttl });
  }

  has(key: string): boolean {
    return this.#keys.get(key) === true;
  }

  add(key: string): void {
    this.#keys.set(key, true);
  }

  clear(): void {
    this.#keys.clear();
  }
}
