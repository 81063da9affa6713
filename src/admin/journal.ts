import type { Diagnostic, JournalEntry } from '../spec/types.js';

/** What the client sent and how the mock answered: one entry per request, never the raw API key. */
export type { JournalEntry };

export interface JournalQuery {
  readonly operationId?: string;
  readonly invalid?: boolean;
  readonly limit?: number;
}

/**
 * What a request leaves in the journal: the response as the text that was sent, and the request body as the
 * JSON text received when there is one (else `requestBody` is kept).
 */
export type JournalRecord = Omit<JournalEntry, 'id' | 'time' | 'responseBody' | 'diagnostics'> & {
  readonly requestText?: string | undefined;
  readonly responseText: string | null;
  readonly diagnostics: readonly Diagnostic[];
};

/** An entry as kept: both bodies as JSON text, so the journal holds two strings, not two object graphs. */
type Recorded = Omit<JournalEntry, 'id' | 'time' | 'requestBody' | 'responseBody' | 'diagnostics'> & {
  readonly diagnostics: readonly Diagnostic[];
  readonly id: number;
  readonly at: number;
  readonly requestText: string;
  readonly responseText: string | null;
};

/**
 * A bounded, in-memory journal (the newest `capacity` entries), newest last. Recording is on every request's
 * path, so it keeps text and the clock reading in a ring; bodies are parsed and times formatted when it is read.
 * (Keeping parsed bodies alive for a thousand requests made every young-generation GC copy them, which cost more
 * than all the validation of a request.)
 */
export class Journal {
  #ring: Array<Recorded | undefined>;
  #next = 0;
  #nextId = 1;

  constructor(private readonly capacity = 1000) {
    this.#ring = new Array(capacity);
  }

  record(entry: JournalRecord): void {
    this.#ring[this.#next] = {
      method: entry.method,
      path: entry.path,
      operationId: entry.operationId,
      keyEnvironment: entry.keyEnvironment,
      status: entry.status,
      diagnostics: entry.diagnostics,
      id: this.#nextId++,
      at: Date.now(),
      requestText: entry.requestText ?? JSON.stringify(entry.requestBody ?? null),
      responseText: entry.responseText,
    };
    this.#next = (this.#next + 1) % this.capacity;
  }

  list(query: JournalQuery = {}): JournalEntry[] {
    const ordered = [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
    let entries = ordered.filter((e): e is Recorded => e !== undefined);
    if (query.operationId !== undefined) entries = entries.filter((e) => e.operationId === query.operationId);
    if (query.invalid === true) entries = entries.filter((e) => e.diagnostics.length > 0);
    if (query.limit !== undefined) entries = entries.slice(-query.limit);
    return entries.map(({ at, id, requestText, responseText, ...entry }) => ({
      id,
      time: new Date(at).toISOString(),
      ...entry,
      diagnostics: [...entry.diagnostics],
      requestBody: JSON.parse(requestText),
      responseBody: responseText === null ? null : JSON.parse(responseText),
    }));
  }

  clear(): void {
    this.#ring = new Array(this.capacity);
    this.#next = 0;
  }
}
