import type { JournalEntry } from '../spec/types.js';

/** What the client sent and how the mock answered: one entry per request, never the raw API key. */
export type { JournalEntry };

export interface JournalQuery {
  readonly operationId?: string;
  readonly invalid?: boolean;
  readonly limit?: number;
}

type Recorded = Omit<JournalEntry, 'id' | 'time'> & { readonly id: number; readonly at: number };

/**
 * A bounded, in-memory journal (the newest `capacity` entries), newest last. Recording is on every request's
 * path, so it only stores the entry in a ring and the clock reading; times are formatted when the journal is read.
 */
export class Journal {
  #ring: Array<Recorded | undefined>;
  #next = 0;
  #nextId = 1;

  constructor(private readonly capacity = 1000) {
    this.#ring = new Array(capacity);
  }

  record(entry: Omit<JournalEntry, 'id' | 'time'>): void {
    this.#ring[this.#next] = { ...entry, id: this.#nextId++, at: Date.now() };
    this.#next = (this.#next + 1) % this.capacity;
  }

  list(query: JournalQuery = {}): JournalEntry[] {
    const ordered = [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
    let entries = ordered.filter((e): e is Recorded => e !== undefined);
    if (query.operationId !== undefined) entries = entries.filter((e) => e.operationId === query.operationId);
    if (query.invalid === true) entries = entries.filter((e) => e.diagnostics.length > 0);
    if (query.limit !== undefined) entries = entries.slice(-query.limit);
    return entries.map(({ at, id, ...entry }) => ({ id, time: new Date(at).toISOString(), ...entry }));
  }

  clear(): void {
    this.#ring = new Array(this.capacity);
    this.#next = 0;
  }
}
