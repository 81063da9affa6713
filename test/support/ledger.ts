import { isDeepStrictEqual } from 'node:util';
import type { Group } from '../../src/index.js';
import { type StoredGroups, storedKey } from './dbFiles.js';

/** What a client asked for and has not heard back about: it may or may not have been applied. */
export type Pending =
  | {
      readonly kind: 'create';
      readonly name: string;
      readonly mapping: Group['mapping'];
      readonly properties: Group['properties'];
    }
  | { readonly kind: 'update'; readonly patch: Partial<Pick<Group, 'name' | 'mapping' | 'properties'>> }
  | { readonly kind: 'rotate' };

interface Entry {
  /** The state the server acknowledged last; undefined until a create is acknowledged. */
  confirmed: Group | undefined;
  pending: Pending | undefined;
  /** Tokens this group held before, oldest first: none may work again. */
  readonly superseded: string[];
}

const tokenPattern = /^[0-9a-f]{64}$/;

/**
 * The client side's record of every acknowledged change, and of the one request per group whose answer never
 * came. After a crash, `reconcile` checks the stored groups against it: each acknowledged change must be there;
 * an unanswered one may or may not be, but nothing else may.
 */
export class Ledger {
  readonly #entries = new Map<string, Entry>();
  readonly #tokens = new Set<string>();
  acknowledged = 0;
  unknownOutcomes = 0;
  appliedUnknowns = 0;

  constructor(readonly tenant = 'default') {}

  key(environment: Group['environment'], providedId: string): string {
    return storedKey(this.tenant, environment, providedId);
  }

  confirmed(key: string): Group | undefined {
    return this.#entries.get(key)?.confirmed;
  }

  superseded(key: string): readonly string[] {
    return this.#entries.get(key)?.superseded ?? [];
  }

  /** Confirmed groups with nothing in flight. */
  settled(): Array<[string, Group]> {
    return [...this.#entries].flatMap(([key, e]) =>
      e.confirmed !== undefined && e.pending === undefined ? [[key, e.confirmed] as [string, Group]] : [],
    );
  }

  hasPending(key: string): boolean {
    return this.#entries.get(key)?.pending !== undefined;
  }

  /** A request is about to be sent. One at a time per group: the caller owns the group. */
  begin(key: string, pending: Pending): void {
    const entry = this.#entries.get(key) ?? { confirmed: undefined, pending: undefined, superseded: [] };
    if (entry.pending !== undefined) throw new Error(`ledger: ${key} already has a request in flight`);
    entry.pending = pending;
    this.#entries.set(key, entry);
  }

  /** The server answered 200 with this state. Returns a violation when the token is reused. */
  acknowledge(key: string, state: Group): string | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) throw new Error(`ledger: ${key} acknowledged without begin`);
    const previous = entry.confirmed;
    let violation: string | undefined;
    if (previous?.token !== state.token) {
      if (this.#tokens.has(state.token)) violation = `${key}: token ${state.token} was handed out before`;
      if (previous !== undefined) entry.superseded.push(previous.token);
      this.#tokens.add(state.token);
    }
    entry.confirmed = state;
    entry.pending = undefined;
    this.acknowledged++;
    return violation;
  }

  /** The server answered with an error: nothing was applied. */
  reject(key: string): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) entry.pending = undefined;
  }

  /** The request failed without an answer (connection lost): its outcome is unknown until `reconcile`. */
  lose(): void {
    this.unknownOutcomes++;
  }

  /**
   * Compares the stored groups with the ledger and adopts each unknown outcome as stored. Returns every
   * violation: an acknowledged change missing, a group nobody created, or a state no request could produce.
   */
  reconcile(stored: StoredGroups): string[] {
    const violations: string[] = [];
    const teamIds = new Map<number, string>();
    for (const [key, group] of stored) {
      const other = teamIds.get(group.team_id);
      if (other !== undefined) violations.push(`${key} and ${other} share team_id ${group.team_id}`);
      teamIds.set(group.team_id, key);
      if (group.tenant === this.tenant && !this.#entries.has(key))
        violations.push(`${key} is stored but was never requested`);
    }
    for (const [key, entry] of this.#entries) {
      const found = stored.get(key);
      const actual = found === undefined ? undefined : withoutTenant(found);
      const outcome = this.#judge(key, entry, actual);
      if (typeof outcome === 'string') {
        violations.push(outcome);
        continue;
      }
      if (entry.pending !== undefined && outcome.applied) this.appliedUnknowns++;
      if (actual !== undefined && entry.confirmed?.token !== actual.token) {
        if (entry.confirmed !== undefined) entry.superseded.push(entry.confirmed.token);
        this.#tokens.add(actual.token);
      }
      entry.confirmed = actual;
      entry.pending = undefined;
    }
    for (const [key, entry] of [...this.#entries]) {
      if (entry.confirmed === undefined && entry.pending === undefined) this.#entries.delete(key);
    }
    return violations;
  }

  /** Whether the stored state is the acknowledged one, or the acknowledged one plus the unanswered request. */
  #judge(key: string, entry: Entry, actual: Group | undefined): { applied: boolean } | string {
    const { confirmed, pending } = entry;
    const show = (g: Group | undefined): string => (g === undefined ? 'absent' : JSON.stringify(g));
    if (isDeepStrictEqual(actual, confirmed)) return { applied: false };
    const lost = `${key}: stored ${show(actual)}, but the acknowledged state is ${show(confirmed)}`;
    if (pending === undefined || actual === undefined) return lost;
    switch (pending.kind) {
      case 'create': {
        if (confirmed !== undefined) return lost;
        const expected = { name: pending.name, mapping: pending.mapping, properties: pending.properties };
        const got = { name: actual.name, mapping: actual.mapping, properties: actual.properties };
        if (!isDeepStrictEqual(got, expected)) return `${key}: created as ${show(actual)}, not as requested`;
        return this.#freshToken(key, actual.token) ?? { applied: true };
      }
      case 'update': {
        if (confirmed === undefined) return lost;
        return isDeepStrictEqual(actual, { ...confirmed, ...pending.patch }) ? { applied: true } : lost;
      }
      case 'rotate': {
        if (confirmed === undefined || !isDeepStrictEqual({ ...actual, token: confirmed.token }, confirmed))
          return lost;
        return this.#freshToken(key, actual.token) ?? { applied: true };
      }
    }
  }

  #freshToken(key: string, token: string): string | undefined {
    if (!tokenPattern.test(token)) return `${key}: stored token ${token} is not 64 lowercase hex characters`;
    if (this.#tokens.has(token)) return `${key}: stored token ${token} was handed out before`;
    return undefined;
  }

  /** Every acknowledged group, for comparing a final state that has nothing in flight. */
  expected(): StoredGroups {
    const groups: StoredGroups = new Map();
    for (const [key, entry] of this.#entries)
      if (entry.confirmed !== undefined) groups.set(key, { ...entry.confirmed, tenant: this.tenant });
    return groups;
  }
}

const withoutTenant = (group: Group & { tenant: string }): Group => {
  const { tenant: _tenant, ...rest } = group;
  return rest;
};
