import { request } from 'undici';

export interface StreamEvent {
  readonly event: string;
  readonly id: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: events carry journal entries, read as loosely typed JSON
  readonly data: any;
}

export interface EventStream {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Resolves once `count` events have arrived in all (rejects after `timeoutMs`). */
  next(count: number, timeoutMs?: number): Promise<StreamEvent[]>;
  /** Resolves when the stream stops: `complete` when the server ended it, `broken` when the connection was cut. */
  readonly ended: Promise<'complete' | 'broken'>;
  close(): void;
}

/** Opens `GET /__admin/events` and reads its server-sent events as they come. */
export async function openEvents(
  url: string,
  query = '',
  headers: Record<string, string> = {},
): Promise<EventStream> {
  const controller = new AbortController();
  const response = await request(`${url}/__admin/events${query}`, { headers, signal: controller.signal });
  const events: StreamEvent[] = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  const ended = (async (): Promise<'complete' | 'broken'> => {
    try {
      for await (const chunk of response.body) {
        buffer += chunk.toString('utf8');
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          const fields = new Map<string, string>();
          for (const line of block.split('\n'))
            if (!line.startsWith(':'))
              fields.set(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2));
          if (!fields.has('event')) continue;
          const data = fields.get('data') ?? '';
          events.push({
            event: fields.get('event') as string,
            id: fields.get('id'),
            data: data === '' ? undefined : JSON.parse(data),
          });
          for (const wake of waiters) wake();
        }
      }
      return 'complete';
    } catch {
      return 'broken';
    }
  })();
  return {
    status: response.statusCode,
    headers: response.headers,
    ended,
    next: (count, timeoutMs = 5_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (events.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(events.slice(0, count));
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`only ${events.length} of ${count} events arrived in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => controller.abort(),
  };
}
