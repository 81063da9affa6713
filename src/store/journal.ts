import type { RotatedAway } from '../domain/userGroups.js';
import type { Diagnostic, JournalEntry, ServiceOperationId } from '../spec/types.js';
import { type RequestHeader, requestHeadersOf } from './requestHeaders.js';

/** What the client sent and how the mock answered: one entry per request, never the raw API key. */
export type { JournalEntry };

/**
 * Which journal entries to list, as `GET /__admin/requests` takes them (a query it would refuse with 400 is refused
 * in process too).
 */
export interface JournalQuery {
  /** Only the requests routed to this operation. */
  readonly operationId?: ServiceOperationId;
  /** `true` lists only the requests that broke the contract (those with diagnostics). */
  readonly invalid?: boolean;
  /**
   * Only the requests that broke the contract by this side's fault (an entry of `both` sides is either's); `both`:
   * only the exchanges both sides broke.
   */
  readonly fault?: JournalFault;
  /** Only the newest `limit` entries (after filtering), 1 to 100,000. */
  readonly limit?: number;
  /** Only entries whose id is above this one. */
  readonly after?: number;
}

/**
 * What a request leaves in the journal: the response as the text that was sent, and the request body as the JSON
 * text received when there is one (`requestText`), else as a value (`requestBody`: a string that was not JSON,
 * or null). The journal keeps the record as it is given: callers pass text, never a parsed object graph.
 */
export type JournalRecord = Omit<
  JournalEntry,
  | 'id'
  | 'time'
  | 'responseBody'
  | 'diagnostics'
  | 'warnings'
  | 'fault'
  | 'requestHeaders'
  | 'requestBodyNotKept'
> & {
  /**
   * The request's headers as Node gave them (`req.rawHeaders`: name, value, name, value...), the array itself:
   * secrets are hidden when the journal is read (`requestHeadersOf`), never stored elsewhere unhidden.
   */
  readonly rawHeaders: readonly string[];
  /** What the `Authorization` key matched, in words without the key (`keyMatchedBy`); none: it matched no key. */
  readonly keyMatched?: string | undefined;
  /** Why the body the request announced was not kept (`requestBodyNotKept`), if it was not. */
  readonly requestBodyNotKept?: string | undefined;
  readonly requestText: string | undefined;
  readonly responseText: string | null;
  readonly diagnostics: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
  /** Whose mistake the diagnostics are; the client's unless said otherwise (the proxy judges answers too). */
  readonly fault?: JournalFault;
};

/** Whose mistake a broken contract is: the request's, the answer's (behind the proxy), or both in one exchange. */
export type JournalFault = NonNullable<JournalEntry['fault']>;

/**
 * Whether an entry's diagnostics are (also) `side`'s fault: an exchange both sides broke is each side's, and the
 * only one `both` finds.
 */
export const isFaultOf = (
  entry: { readonly diagnostics: readonly unknown[]; readonly fault?: JournalFault | null | undefined },
  side: JournalFault,
): boolean => entry.diagnostics.length > 0 && ((entry.fault ?? 'client') === side || entry.fault === 'both');

/** How many entries a journal keeps unless told otherwise (`journalLimit`, `--journal-limit`). */
export const defaultJournalLimit = 1000;
/** The largest journal a tenant may keep: each entry holds its bodies, up to the body limit each. */
export const maxJournalLimit = 100_000;
/**
 * The most body text (characters of the requests' and answers' bodies) one journal in memory holds: past it the
 * oldest entries are dropped, as past `journalLimit`, however few the entries. Without it a journal of 1,000
 * entries whose bodies come near the 1 MiB body limit would hold about 2 GB.
 */
export const journalTextBudget = 32 * 1024 * 1024;

/** The journal's columns, one slot per entry: numbers in typed arrays, the rest as the records gave them. */
const columns = (capacity: number) => ({
  method: new Array<string>(capacity),
  path: new Array<string>(capacity),
  operationId: new Array<JournalRecord['operationId']>(capacity),
  keyEnvironment: new Array<JournalRecord['keyEnvironment']>(capacity),
  status: new Float64Array(capacity),
  durationMs: new Float64Array(capacity),
  requestText: new Array<string | undefined>(capacity),
  requestBody: new Array<JournalRecord['requestBody']>(capacity),
  responseText: new Array<string | null>(capacity),
  diagnostics: new Array<readonly Diagnostic[]>(capacity),
  warnings: new Array<readonly Diagnostic[]>(capacity),
  fault: new Array<JournalRecord['fault']>(capacity),
  rawHeaders: new Array<readonly string[]>(capacity),
  keyMatched: new Array<string | undefined>(capacity),
  bodyNotKept: new Array<string | undefined>(capacity),
  ids: new Float64Array(capacity),
  times: new Float64Array(capacity),
  /** The characters of the entry's body texts, counted against `journalTextBudget`. */
  texts: new Float64Array(capacity),
});

/** The characters of a record's body texts: what it holds of the request's and the answer's bodies. */
const textOf = (record: JournalRecord): number =>
  (record.requestText?.length ?? 0) +
  (typeof record.requestBody === 'string' ? record.requestBody.length : 0) +
  (record.responseText?.length ?? 0);
type Columns = ReturnType<typeof columns>;

/**
 * A bounded, in-memory journal (the newest `capacity` entries), newest last; it counts the older entries it drops
 * to make room (`dropped`), so that a check of the whole journal knows when it did not see every request. Recording is on every request's
 * path, so bodies stay the text they came as (parsed, and times formatted, when the journal is read), and a record's
 * fields are kept in columns, one array per field, numbers in typed arrays: a request leaves its strings in the
 * journal and no object of its own. (Keeping parsed bodies alive for a thousand requests made every young-generation
 * GC copy them, which cost more than all the validation of a request. Keeping each record object made V8, once a
 * burst of writes had kept records past two collections, allocate every later record straight in the old
 * generation: a get-or-create on a mock that had served 100,000 creates ran a tenth to a fifth slower, collecting
 * records the young generation would have dropped for free.)
 */
export class Journal {
  #columns: Columns;
  /** How many slots hold an entry (up to `capacity`): the `#size` slots before `#next`, in a ring. */
  #size = 0;
  #next = 0;
  #nextId = 1;
  #dropped = 0;
  /** The characters of body text the entries held hold (`textOf`). */
  #text = 0;
  readonly #listeners = new Set<JournalListener>();

  constructor(
    readonly capacity = defaultJournalLimit,
    private readonly textBudget = journalTextBudget,
  ) {
    this.#columns = columns(capacity);
  }

  record(entry: JournalRecord): void {
    const c = this.#columns;
    const slot = this.#next;
    const id = this.#nextId++;
    const at = Date.now();
    if (this.#size === this.capacity) {
      this.#dropped++;
      this.#text -= c.texts[slot] as number;
    } else this.#size++;
    const text = textOf(entry);
    c.texts[slot] = text;
    this.#text += text;
    c.method[slot] = entry.method;
    c.path[slot] = entry.path;
    c.operationId[slot] = entry.operationId;
    c.keyEnvironment[slot] = entry.keyEnvironment;
    c.status[slot] = entry.status;
    c.durationMs[slot] = entry.durationMs;
    c.requestText[slot] = entry.requestText;
    c.requestBody[slot] = entry.requestBody;
    c.responseText[slot] = entry.responseText;
    c.diagnostics[slot] = entry.diagnostics;
    c.warnings[slot] = entry.warnings;
    c.fault[slot] = entry.fault;
    c.rawHeaders[slot] = entry.rawHeaders;
    c.keyMatched[slot] = entry.keyMatched;
    c.bodyNotKept[slot] = entry.requestBodyNotKept;
    c.ids[slot] = id;
    c.times[slot] = at;
    this.#next = (slot + 1) % this.capacity;
    if (this.#text > this.textBudget) this.#dropOldest();
    if (this.#listeners.size > 0) for (const listener of this.#listeners) listener.recorded(entry, id, at);
  }

  /** The slot of the oldest entry held. */
  #oldest(): number {
    return (this.#next - this.#size + this.capacity) % this.capacity;
  }

  /** Drops the oldest entries, counted as dropped, until the bodies held are within the budget; keeps the newest. */
  #dropOldest(): void {
    const c = this.#columns;
    while (this.#text > this.textBudget && this.#size > 1) {
      const slot = this.#oldest();
      this.#text -= c.texts[slot] as number;
      c.texts[slot] = 0;
      // Its strings let go now, not when the slot is written again.
      c.requestText[slot] = undefined;
      c.requestBody[slot] = null;
      c.responseText[slot] = null;
      this.#size--;
      this.#dropped++;
    }
  }

  /** The record in `slot`, as it was given (with the same fields, in the same order). */
  #recordAt(slot: number): JournalRecord {
    const c = this.#columns;
    const fault = c.fault[slot];
    return {
      method: c.method[slot] as string,
      path: c.path[slot] as string,
      operationId: c.operationId[slot] ?? null,
      keyEnvironment: c.keyEnvironment[slot] ?? null,
      status: c.status[slot] as number,
      durationMs: c.durationMs[slot] as number,
      rawHeaders: c.rawHeaders[slot] ?? [],
      keyMatched: c.keyMatched[slot],
      requestBodyNotKept: c.bodyNotKept[slot],
      requestText: c.requestText[slot],
      requestBody: c.requestBody[slot] ?? null,
      responseText: c.responseText[slot] ?? null,
      diagnostics: c.diagnostics[slot] ?? [],
      warnings: c.warnings[slot] ?? [],
      ...(fault === undefined ? {} : { fault }),
    };
  }

  list(query: JournalQuery = {}): JournalEntry[] {
    const first = this.#oldest();
    const { ids, times } = this.#columns;
    let entries = Array.from({ length: this.#size }, (_, i) => {
      const slot = (first + i) % this.capacity;
      return { entry: this.#recordAt(slot), id: ids[slot] as number, at: times[slot] as number };
    });
    if (query.operationId !== undefined)
      entries = entries.filter(({ entry }) => entry.operationId === query.operationId);
    if (query.invalid === true) entries = entries.filter(({ entry }) => entry.diagnostics.length > 0);
    const { fault } = query;
    if (fault !== undefined) entries = entries.filter(({ entry }) => isFaultOf(entry, fault));
    if (query.after !== undefined) entries = entries.filter(({ id }) => id > (query.after as number));
    if (query.limit !== undefined) entries = entries.slice(-query.limit);
    return entries.map(({ entry, id, at }) => journalEntry(entry, id, at));
  }

  /**
   * Calls `listener` with each record from now on, and when the journal is emptied; the returned function
   * stops it. With no listener, recording costs one size check more.
   */
  subscribe(listener: JournalListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** The entries dropped to make room since the journal was created or last emptied. */
  get dropped(): number {
    return this.#dropped;
  }

  clear(): void {
    // New columns rather than emptied slots: the records' strings are let go at once.
    this.#columns = columns(this.capacity);
    this.#size = 0;
    this.#next = 0;
    this.#dropped = 0;
    this.#text = 0;
    for (const listener of this.#listeners) listener.cleared?.();
  }
}

/**
 * What `watchRequests` takes: a function called with each entry as `requests()` lists it, or an object whose
 * `entry` is that function and whose `cleared` hears the journal being emptied.
 */
export type RequestWatcher =
  | ((entry: JournalEntry) => void)
  | { readonly entry: (entry: JournalEntry) => void; readonly cleared?: () => void };

/**
 * The journal's listener for a watcher; refuses (TypeError) anything else at once, rather than failing on the next
 * request. The entry is formatted only when someone listens.
 */
export function watcherListener(watcher: RequestWatcher): JournalListener {
  const { entry, cleared } =
    typeof watcher === 'function' ? { entry: watcher, cleared: undefined } : (watcher ?? {});
  if (typeof entry === 'function')
    return {
      recorded: (record, id, at) => entry(journalEntry(record, id, at)),
      ...(typeof cleared === 'function' ? { cleared: () => cleared() } : {}),
    };
  throw new TypeError(
    'user-group-mock: watchRequests takes a function called with each journal entry, e.g. watchRequests((entry) => console.log(entry.status)), or { entry(entry) {}, cleared() {} }',
  );
}

/** What a subscriber to the journal hears: each record as it is kept (format it with `journalEntry`). */
export interface JournalListener {
  recorded(record: JournalRecord, id: number, at: number): void;
  cleared?(): void;
}

/**
 * A record as the shared journal (PostgreSQL) stores it: the headers already listed with their secrets hidden,
 * since the table outlives the request.
 */
export type StoredRecord = Omit<JournalRecord, 'rawHeaders' | 'keyMatched'> & {
  readonly requestHeaders: readonly RequestHeader[];
};

export const storedRecord = ({ rawHeaders, keyMatched, ...rest }: JournalRecord): StoredRecord => ({
  ...rest,
  requestHeaders: requestHeadersOf(rawHeaders, keyMatched),
});

/** A record as the journal lists it: bodies parsed, the headers' secrets hidden, the time formatted. */
export function journalEntry(record: JournalRecord | StoredRecord, id: number, at: number): JournalEntry {
  const {
    requestText,
    requestBody,
    requestBodyNotKept,
    responseText,
    diagnostics,
    warnings,
    fault,
    requestHeaders,
    ...request
  } = 'rawHeaders' in record ? storedRecord(record) : record;
  return {
    id,
    time: new Date(at).toISOString(),
    ...request,
    diagnostics: [...diagnostics],
    warnings: [...warnings],
    fault: diagnostics.length === 0 ? null : (fault ?? 'client'),
    requestHeaders: [...requestHeaders],
    requestBody: requestText === undefined ? (requestBody ?? null) : JSON.parse(requestText),
    requestBodyNotKept: requestBodyNotKept ?? null,
    responseBody: responseText === null ? null : JSON.parse(responseText),
  };
}

/** The token a journalled rotation replaced, and whose it was: a rotation answered 200 names both. */
export function rotatedAway(
  record: Pick<JournalRecord, 'operationId' | 'status' | 'requestText' | 'responseText'>,
  at: number,
): [string, RotatedAway] | undefined {
  if (record.operationId !== 'rotateUserGroupToken' || record.status !== 200) return undefined;
  if (record.requestText === undefined || record.responseText === null) return undefined;
  const sent = JSON.parse(record.requestText) as { current_token?: unknown };
  const answered = JSON.parse(record.responseText) as {
    user_group?: { provided_id?: unknown; api_environment_tag?: unknown };
  };
  const token = sent.current_token;
  const provided_id = answered.user_group?.provided_id;
  const environment = answered.user_group?.api_environment_tag;
  if (typeof token !== 'string' || typeof provided_id !== 'string') return undefined;
  if (environment !== 'Customer' && environment !== 'Testing') return undefined;
  return [token, { environment, provided_id, rotatedAt: at }];
}
