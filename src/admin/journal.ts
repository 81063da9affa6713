import type { JournalEntry } from '../spec/types.js';

/** What the client sent and how the mock answered: one entry per request, never the raw API key. */
export type { JournalEntry };

export interface JournalQuery {
  readonly operationId?: string;
  readonly invalid?: boolean;
  readonly limit?: number;
}

/** A bounded, in-memory journal (the newest `capacity` entries), newest last. */
export class Journal {
  #entries: JournalEntry[] = [];
  #nextId = 1;

  constructor(private readonly capacity = 1000) {}

  record(entry: Omit<JournalEntry, 'id' | 'time'>): void {
    this.#entries.push({ id: this.#nextId++, time: new Date().toISOString(), ...entry });
    if (this.#entries.length > this.capacity) this.#entries.splice(0, this.#entries.length - this.capacity);
  }

  list(query: JournalQuery = {}): JournalEntry[] {
    let entries = this.#entries;
    if (query.operationId !== undefined) entries = entries.filter((e) => e.operationId === query.operationId);
    if (query.invalid === true) entries = entries.filter((e) => e.diagnostics.length > 0);
    return query.limit === undefined ? [...entries] : entries.slice(-query.limit);
  }

  clear(): void {
    this.#entries = [];
  }
}
