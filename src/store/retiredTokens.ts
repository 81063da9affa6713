import { groupKey } from '../domain/model.js';
import type { RotatedAway } from '../domain/userGroups.js';
import { type JournalListener, type JournalRecord, rotatedAway } from './journal.js';

export type RetiredToken = RotatedAway;

/**
 * The tokens a tenant's rotations replaced, so that the embed preview can tell a rotated token from one that was
 * never issued. Learned from the tenant's journal (it listens to it): a rotation answered 200 names the old token
 * in its request and the group in its answer. In memory only, like the journal, and bounded: the newest
 * `perGroup` old tokens of each group and `capacity` in all, the oldest forgotten first.
 */
export class RetiredTokens implements JournalListener {
  /** In the order they were rotated away. */
  readonly #tokens = new Map<string, { readonly retired: RetiredToken; readonly group: string }>();
  /** Each group's old tokens, oldest first: a rotation's bookkeeping takes the same time however many are held. */
  readonly #ofGroup = new Map<string, Set<string>>();

  constructor(
    private readonly capacity = 1000,
    private readonly perGroup = 10,
  ) {}

  recorded(record: JournalRecord, _id: number, at: number): void {
    const found = rotatedAway(record, at);
    if (found !== undefined) this.remember(...found);
  }

  remember(token: string, retired: RetiredToken): void {
    const group = groupKey(retired.environment, retired.provided_id);
    this.#forget(token);
    this.#tokens.set(token, { retired, group });
    const ofGroup = this.#ofGroup.get(group) ?? new Set<string>();
    this.#ofGroup.set(group, ofGroup.add(token));
    if (ofGroup.size > this.perGroup) this.#forget(ofGroup.values().next().value as string);
    if (this.#tokens.size > this.capacity) this.#forget(this.#tokens.keys().next().value as string);
  }

  find(token: string): RetiredToken | undefined {
    return this.#tokens.get(token)?.retired;
  }

  get size(): number {
    return this.#tokens.size;
  }

  #forget(token: string): void {
    const held = this.#tokens.get(token);
    if (held === undefined) return;
    this.#tokens.delete(token);
    const ofGroup = this.#ofGroup.get(held.group);
    if (ofGroup?.delete(token) && ofGroup.size === 0) this.#ofGroup.delete(held.group);
  }
}
