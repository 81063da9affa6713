import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Browsers ask every site they show for `/favicon.ico`, a JSON address opened in a tab included. Answered 204 (no
 * icon, asked again in a day at most) and never journaled: reading `/__admin/requests?invalid=true` in a browser
 * would otherwise add an invalid request of its own. Whether it answered.
 */
export function answerFavicon(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (path !== '/favicon.ico' || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  res.writeHead(204, ['cache-control', 'max-age=86400']);
  res.end();
  return true;
}
