import { applyChanges, type Change } from '../domain/changes.js';
import type { World } from '../domain/model.js';
import { type OnWarning, type Persistence, processWarning } from './persistence.js';

interface Entry {
  readonly changes: readonly Change[];
  readonly undo: readonly Change[];
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * The world in memory, kept equal to what is durable. `commit` applies changes at once (so the next request sees
 * them) and resolves when they are durable. Commits that arrive while a write is under way are group-committed:
 * one append serves them all. When an append fails, every change not yet durable is rolled back and its commit
 * rejected: memory never drifts from disk.
 */
export class Store {
  #pending: Entry[] = [];
  #flushing: Promise<void> | undefined;
  #last: Promise<void> = Promise.resolve();

  constructor(
    private readonly persistence: Persistence,
    private readonly onWarning: OnWarning = processWarning,
  ) {}

  get world(): World {
    return this.persistence.world;
  }

  commit(changes: readonly Change[]): Promise<void> {
    if (changes.length === 0) return this.settled();
    const undo = applyChanges(this.world, changes);
    const done = new Promise<void>((resolve, reject) =>
      this.#pending.push({ changes, undo, resolve, reject }),
    );
    done.catch(() => undefined);
    this.#last = done;
    this.#flushing ??= this.#flush();
    return done;
  }

  /** Whether every change applied so far is durable now (nothing queued or being written). */
  get settledNow(): boolean {
    return this.#flushing === undefined && this.#pending.length === 0;
  }

  /** Resolves once every change applied so far is durable (rejects if one of them was rolled back). */
  settled(): Promise<void> {
    return this.#last;
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        await this.persistence.append(batch.flatMap((entry) => entry.changes));
      } catch (error) {
        const lost = [...batch, ...this.#pending];
        this.#pending = [];
        for (const entry of [...lost].reverse()) applyChanges(this.world, entry.undo);
        const reason = new Error(
          `user-group-mock: the change could not be written (${(error as Error).message}); nothing was kept.`,
        );
        for (const entry of lost) entry.reject(reason);
        this.#last = Promise.resolve();
        continue;
      }
      for (const entry of batch) entry.resolve();
      if (this.#pending.length === 0) {
        await this.persistence.maybeCompact().catch((error: Error) => {
          this.onWarning(
            `user-group-mock: could not start a compaction (${error.message}); will retry later.`,
          );
        });
      }
    }
    this.#flushing = undefined;
  }

  /** Waits for every commit, then closes the persistence (and releases its lock). */
  async close(): Promise<void> {
    await this.#flushing;
    await this.persistence.close();
  }
}
