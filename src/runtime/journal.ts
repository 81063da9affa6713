import type { Diagnostic, JournalEntry } from '../spec/types.js';

/** What the client sent and how the mock answered: one entry per request, never the raw API key. */
export type { JournalEntry };

export interface JournalQuery {
  readonly operationId?: string;
  readonly invalid?: boolean;
  readonly limit?: number;
}

/**
 * What a request leaves in the journal: the response as the text that was sent, and the request body as the JSON
 * text received when there is one (`requestText`), else as a value (`requestBody`: a string that was not JSON,
 * or null). The journal keeps the record as it is given: callers pass text, never a parsed object graph.
 */
export type JournalRecord = Omit<
  JournalEntry,
  'id' | 'time' | 'responseBody' | 'diagnostics' | 'warnings'
> & {
  readonly requestText: string | undefined;
  readonly responseText: string | null;
  readonly diagnostics: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
};

/**
 * A bounded, in-memory journal (the newest `capacity` entries), newest last. Recording is on every request's
 * path, so it keeps each record as given, with its id and clock reading in typed arrays beside it; bodies are
 * parsed and times formatted when it is read. (Keeping parsed bodies alive for a thousand requests made every
 * young-generation GC copy them, which cost more than all the validation of a request.)
 */
export class Journal {
  #ring: Array<JournalRecord | undefined>;
  readonly #ids: Float64Array;
  readonly #times: Float64Array;
  #next = 0;
  #nextId = 1;

  constructor(private readonly capacity = 1000) {
    this.#ring = new Array(capacity);
    this.#ids = new Float64Array(capacity);
    this.#times = new Float64Array(capacity);
  }

  record(entry: JournalRecord): void {
    const slot = this.#next;
    this.#ring[slot] = entry;
    this.#ids[slot] = this.#nextId++;
    this.#times[slot] = Date.now();
    this.#next = (slot + 1) % this.capacity;
  }

  list(query: JournalQuery = {}): JournalEntry[] {
    const slots = Array.from({ length: this.capacity }, (_, i) => (this.#next + i) % this.capacity);
    let entries = slots.flatMap((slot) => {
      const entry = this.#ring[slot];
      return entry === undefined
        ? []
        : [{ entry, id: this.#ids[slot] as number, at: this.#times[slot] as number }];
    });
    if (query.operationId !== undefined)
      entries = entries.filter(({ entry }) => entry.operationId === query.operationId);
    if (query.invalid === true) entries = entries.filter(({ entry }) => entry.diagnostics.length > 0);
    if (query.limit !== undefined) entries = entries.slice(-query.limit);
    return entries.map(({ entry, id, at }) => {
      const { requestText, requestBody, responseText, diagnostics, warnings, ...rest } = entry;
      return {
        id,
        time: new Date(at).toISOString(),
        ...rest,
        diagnostics: [...diagnostics],
        warnings: [...warnings],
        requestBody: requestText === undefined ? (requestBody ?? null) : JSON.parse(requestText),
        responseBody: responseText === null ? null : JSON.parse(responseText),
      };
    });
  }

  clear(): void {
    this.#ring = new Array(this.capacity);
    this.#next = 0;
  }
}
