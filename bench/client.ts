import { request } from 'node:http';
import { GET_BODY, HEADERS, PATH } from './config.js';

export interface Reply {
  status: number;
  body: string;
}

/** One JSON request on a fresh connection (global fetch refuses GET bodies, node:http does not). */
export function send(baseUrl: string, method: string, body: string, timeoutMs = 2_000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(PATH, baseUrl),
      {
        method,
        agent: false,
        timeout: timeoutMs,
        headers: { ...HEADERS, 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${baseUrl} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The probe used for readiness and start-up: GET get-or-create of `customer-a`. */
export function getOrCreate(baseUrl: string): Promise<Reply> {
  return send(baseUrl, 'GET', GET_BODY);
}

/** The `user_group.token` of a successful response. */
export function tokenOf(reply: Reply): string {
  const parsed: unknown = JSON.parse(reply.body);
  const group = (parsed as { user_group?: { token?: unknown } }).user_group;
  if (reply.status !== 200 || typeof group?.token !== 'string') {
    throw new Error(`expected 200 with user_group.token, got ${reply.status}: ${reply.body.slice(0, 200)}`);
  }
  return group.token;
}
