import { hash } from 'node:crypto';
import type { ApiKey, KeyOwner, TenantKeys } from '../domain/model.js';
import { defaultTenantId } from '../domain/model.js';

export type { ApiKey, KeyOwner };

/** The keys a mock accepts when given none: one per environment, for the default tenant. */
export const defaultApiKeys: readonly ApiKey[] = [
  { key: 'dev-customer-key', environment: 'Customer' },
  { key: 'dev-testing-key', environment: 'Testing' },
];

const digest = (key: string): string => hash('sha256', key, 'base64');

/** How many keys of removed tenants are remembered, to name them in a refusal. */
const removedKept = 1_000;

/**
 * Maps API keys to their tenant and environment. Keys are looked up by their SHA-256 digest, so the time a
 * lookup takes does not depend on how much of a guessed key matches a real one.
 */
export class KeyRing {
  readonly #owners = new Map<string, KeyOwner>();
  /** The tenants of the keys last forgotten (by digest, the newest last), so that a late request can be told so. */
  readonly #removed = new Map<string, string>();
  #generation = 0;

  constructor(
    /** The keys given to the mock: the default tenant's. */
    readonly defaults: readonly ApiKey[],
    /** The tenants the store holds at start, with their keys (the default tenant's are `defaults`). */
    tenants: readonly { readonly id: string; readonly keys: TenantKeys | null }[],
    /**
     * Whether a credential that is no key is a group token a rotation replaced (the tenants' `RetiredTokens`), while
     * that rotation is remembered: recognised so that one sent in a key's place is refused as a group token rather
     * than as an unknown key.
     */
    readonly retiredToken: (credential: string) => boolean = () => false,
  ) {
    for (const { key, environment } of defaults) this.learn(key, { tenant: defaultTenantId, environment });
    for (const tenant of tenants) {
      if (tenant.keys === null) continue;
      for (const environment of ['Customer', 'Testing'] as const)
        this.learn(tenant.keys[environment], { tenant: tenant.id, environment });
    }
  }

  /** Changes whenever the keys change: an owner found under an earlier generation may be stale. */
  get generation(): number {
    return this.#generation;
  }

  /** Remembers a key's owner: the mock's own, and those found in a shared store (another replica's tenant). */
  learn(key: string, owner: KeyOwner): void {
    this.#owners.set(digest(key), owner);
  }

  /** Forgets the keys of a tenant removed elsewhere; connections that remembered them authenticate again. */
  forget(tenant: string): void {
    for (const [digested, owner] of this.#owners)
      if (owner.tenant === tenant) {
        this.#owners.delete(digested);
        this.#removed.set(digested, tenant);
      }
    for (const digested of this.#removed.keys()) {
      if (this.#removed.size <= removedKept) break;
      this.#removed.delete(digested);
    }
    this.#generation++;
  }

  owner(key: string): KeyOwner | undefined {
    return this.#owners.get(digest(key));
  }

  /** The tenant a key belonged to, when it is one of a tenant removed lately (the last 1,000 such keys). */
  removedTenant(key: string): string | undefined {
    return this.#removed.get(digest(key));
  }
}
