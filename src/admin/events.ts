import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Reply } from '../pipeline/answer.js';
import type { JournalEntry, RequestWatcher } from '../store/journal.js';

/** A reply that keeps its response open and writes to it itself. */
export interface StreamReply extends Reply {
  stream(req: IncomingMessage, res: ServerResponse, stopping: AbortSignal): void;
}

export const isStreamReply = (reply: object): reply is StreamReply => 'stream' in reply;

/** How far a client may fall behind (bytes written but not yet taken by the socket) before its stream ends. */
const behindLimit = 1024 * 1024;
const keepAliveMs = 15_000;

const requestEvent = (entry: JournalEntry): string =>
  `id: ${entry.id}\nevent: request\ndata: ${JSON.stringify(entry)}\n\n`;

/**
 * The journal as server-sent events (`GET /__admin/events`): the entries of `backlog`, then each request as it
 * is journaled, and `cleared` when the journal is emptied. Both are read in one go, so no entry falls between
 * them. The stream ends when the client goes away, when it falls `behindLimit` behind (it reconnects with `after`),
 * or when the mock closes.
 */
export function journalEvents(
  backlog: readonly JournalEntry[],
  watch: (watcher: RequestWatcher) => Promise<() => void>,
): StreamReply {
  return {
    status: 200,
    body: undefined,
    stream(_req, res, stopping) {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      let ended = false;
      let unsubscribe = (): void => undefined;
      const end = (): void => {
        if (ended) return;
        ended = true;
        unsubscribe();
        clearInterval(keepAlive);
        stopping.removeEventListener('abort', end);
        res.end();
      };
      const send = (text: string): void => {
        if (ended) return;
        res.write(text);
        if (res.writableLength > behindLimit) end();
      };
      send(': user-group-mock journal\n\n');
      for (const entry of backlog) send(requestEvent(entry));
      watch({
        entry: (entry) => send(requestEvent(entry)),
        cleared: () => send('event: cleared\ndata: {}\n\n'),
      }).then((stop) => {
        if (ended) stop();
        else unsubscribe = stop;
      }, end);
      const keepAlive = setInterval(() => send(': keep-alive\n\n'), keepAliveMs);
      keepAlive.unref();
      res.on('close', end);
      if (stopping.aborted) end();
      else stopping.addEventListener('abort', end);
    },
  };
}
