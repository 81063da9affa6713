import { EventSourceParserStream } from 'eventsource-parser/stream';
import { useEffect, useState } from 'preact/hooks';
import type { Diagnostic, JournalEntry, TenantSummary } from '../../spec/types.js';

/** Who the inspector is: the admin key it was given (if any) and the tenant it looks at. */
export interface Session {
  readonly adminKey: string | undefined;
  readonly tenant: TenantSummary | undefined;
}

/** What the groups and faults views are given: the session, when to read again, and the status line. */
export interface ViewProps {
  readonly session: Session;
  /** Changes whenever a request was journaled: the view reads its data again. */
  readonly revision: number;
  readonly announce: (text: string) => void;
}

export interface Answer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read as the admin document describes them
  readonly body: any;
}

const adminKeyStore = 'user-group-mock:admin-key';

/** The admin key, kept for this tab only. */
export const savedAdminKey = (): string | undefined => sessionStorage.getItem(adminKeyStore) ?? undefined;
export const saveAdminKey = (key: string | undefined): void => {
  if (key === undefined) sessionStorage.removeItem(adminKeyStore);
  else sessionStorage.setItem(adminKeyStore, key);
};

/** The admin key, and the key that puts an admin call in the tenant's scope (none for the default tenant). */
function adminHeaders({ adminKey, tenant }: Session): Record<string, string> {
  const key =
    tenant === undefined || tenant.id === 'default'
      ? undefined
      : (tenant.api_keys.Customer ?? tenant.api_keys.Testing);
  return {
    ...(adminKey === undefined ? {} : { 'x-admin-key': adminKey }),
    ...(key === undefined ? {} : { authorization: `Token ${key}` }),
  };
}

/** A call with `sent` headers, its body as JSON; the answer's body parsed, kept as text when it is not JSON. */
async function call(
  method: string,
  path: string,
  sent: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? sent : { ...sent, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

export const admin = (session: Session, method: string, path: string, body?: unknown): Promise<Answer> =>
  call(method, path, adminHeaders(session), body);

/** A call of the service itself with one of the tenant's API keys (journaled like any client's). */
export const service = (method: string, key: string, body: unknown): Promise<Answer> =>
  call(method, '/api/user', { authorization: `Token ${key}` }, body);

/**
 * What `GET path` answers in the session's scope (undefined until it has), read again when `revision` changes (a
 * request was journaled) and when the function returned beside it is called. After the first read, each waits
 * `settle` ms, so that a burst of requests makes one.
 */
export function useAdminGet<T>(
  session: Session,
  path: string,
  revision: number,
  settle = 0,
): [T | undefined, () => void] {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    let current = true;
    const timer = window.setTimeout(
      async () => {
        const answer = await admin(session, 'GET', path);
        if (current && answer.status === 200) setValue(answer.body as T);
      },
      value === undefined ? 0 : settle,
    );
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [session, path, revision, reloads]);
  return [value, () => setReloads((n) => n + 1)];
}

/** The diagnostics of an error answer (the envelope's `details`), or one made of its message. */
export function problems(answer: Answer): Diagnostic[] {
  const error = answer.body?.error;
  if (error === undefined) return [{ code: 'HTTP', path: '', message: `the mock answered ${answer.status}` }];
  const details = (error.details ?? []) as Diagnostic[];
  return details.length > 0 ? details : [{ code: error.code, path: '', message: error.message }];
}

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'refused';

export interface JournalFeed {
  entries(entries: JournalEntry[]): void;
  cleared(): void;
  state(state: StreamState): void;
}

/**
 * Follows `GET /__admin/events` with fetch (EventSource cannot send the admin key or the scope's key): the journal
 * so far, then each request as it happens. Reconnects after a second from the last id seen; a refusal (401) ends
 * it. Entries arriving together are handed over together. Returns the function that stops it.
 */
export function followJournal(session: Session, feed: JournalFeed): () => void {
  let stopped = false;
  let lastId = 0;
  let controller: AbortController | undefined;
  let pending: JournalEntry[] = [];
  let flush: number | undefined;

  const deliver = (entry: JournalEntry): void => {
    lastId = Math.max(lastId, entry.id);
    pending.push(entry);
    flush ??= window.setTimeout(() => {
      flush = undefined;
      const batch = pending;
      pending = [];
      feed.entries(batch);
    }, 16);
  };

  const connect = async (): Promise<void> => {
    if (stopped) return;
    controller = new AbortController();
    feed.state(lastId === 0 ? 'connecting' : 'reconnecting');
    try {
      const response = await fetch(`/__admin/events?after=${lastId}`, {
        headers: adminHeaders(session),
        signal: controller.signal,
        cache: 'no-store',
      });
      if (response.status === 401) {
        stopped = true;
        feed.state('refused');
        return;
      }
      if (!response.ok || response.body === null) throw new Error(`events answered ${response.status}`);
      feed.state('live');
      const events = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream());
      const reader = events.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        if (read.value.event === 'request') deliver(JSON.parse(read.value.data) as JournalEntry);
        else if (read.value.event === 'cleared') feed.cleared();
      }
    } catch {
      controller.abort(); // the stream broke or never began: its connection goes, and a new one is made below
    }
    if (!stopped) {
      feed.state('reconnecting');
      window.setTimeout(() => void connect(), 1000);
    }
  };

  void connect();
  return () => {
    stopped = true;
    controller?.abort();
    if (flush !== undefined) window.clearTimeout(flush);
  };
}
