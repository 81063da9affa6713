import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { type ApiError, apiError } from '../errors.js';
import type { KeyOwner } from '../runtime/keyRing.js';
import type { MockContext } from '../runtime/mockContext.js';
import { readApiKey } from '../validate/headers.js';
import type { RequestHead } from './head.js';

const challenge = { 'www-authenticate': 'Token' };

/** All values of a header as sent, in order (Node keeps only the first `Authorization`); `name` in lower case. */
export function headerValues(req: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const sent = raw[i] as string;
    if (sent.length === name.length && sent.toLowerCase() === name) values.push(raw[i + 1] ?? '');
  }
  return values;
}

/**
 * The last key accepted on each connection. A client sends the same `Authorization` on every request of a
 * keep-alive connection, so parsing and digesting it again each time is work thrown away. A hit compares the
 * header with what the same connection sent before, and holds only while the keys are unchanged.
 */
const accepted = new WeakMap<Socket, { header: string; generation: number; owner: KeyOwner }>();

/** The key's owner, or the error to answer: decided from headers alone, before any body is read. */
export function authenticate(
  req: IncomingMessage,
  context: MockContext,
  head: RequestHead,
): { ok: true; owner: KeyOwner } | { ok: false; error: ApiError } {
  const values = head.authorization;
  const header = values.length === 1 ? (values[0] as string) : undefined;
  const last = header === undefined ? undefined : accepted.get(req.socket);
  if (last !== undefined && last.header === header && last.generation === context.keys.generation) {
    return { ok: true, owner: last.owner };
  }
  const read = readApiKey(values.length > 1 ? values : values[0]);
  if (!read.ok) {
    const { code, message } = read.diagnostic;
    const headers = code === 'AUTH_DUPLICATE' ? {} : challenge;
    return { ok: false, error: apiError(code as ApiError['code'], message, [read.diagnostic], { headers }) };
  }
  const owner = context.keys.owner(read.key);
  if (owner !== undefined) {
    if (header !== undefined && req.socket)
      accepted.set(req.socket, { header, generation: context.keys.generation, owner });
    return { ok: true, owner };
  }
  const path = '/headers/authorization';
  if (context.store.world.tokens.has(read.key)) {
    const message =
      'Authorization carries a user group token, not an API key. The group token only identifies the viewing group in an embedded dashboard; send "Authorization: Token <API_KEY>"';
    return {
      ok: false,
      error: apiError(
        'AUTH_GROUP_TOKEN_AS_KEY',
        message,
        [{ code: 'AUTH_GROUP_TOKEN_AS_KEY', path, message }],
        { headers: challenge },
      ),
    };
  }
  const message =
    'the API key in Authorization is not known to this server; use a key printed at start-up (or given with --api-key), or a tenant key from POST /__admin/tenants';
  return {
    ok: false,
    error: apiError('AUTH_UNKNOWN_KEY', message, [{ code: 'AUTH_UNKNOWN_KEY', path, message }], {
      headers: challenge,
    }),
  };
}
