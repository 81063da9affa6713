import { groupKey } from '../domain/model.js';
import type { RotatedAway } from '../domain/userGroups.js';
import { type JournalListener, type JournalRecord, rotatedAway } from '../store/journal.js';

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
    this.#tokens.delete(token);
    this.#tokens.set(token, { retired, group });
    // A walk over at most `capacity` entries, once per rotation: no index to keep in step.
    const ofGroup = [...this.#tokens].filter(([, held]) => held.group === group);
    if (ofGroup.length > this.perGroup) this.#tokens.delete(ofGroup[0]?.[0] as string);
    if (this.#tokens.size > this.capacity) this.#tokens.delete(this.#tokens.keys().next().value as string);
  }

  find(token: string): RetiredToken | undefined {
    return this.#tokens.get(token)?.retired;
  }

  get size(): number {
    return this.#tokens.size;
  }
}
