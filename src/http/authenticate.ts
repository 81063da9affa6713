import type { IncomingMessage } from 'node:http';
import { type ApiError, apiError } from '../errors.js';
import { readApiKey } from '../validate/headers.js';
import type { MockContext } from './context.js';
import type { KeyOwner } from './keys.js';

const challenge = { 'www-authenticate': 'Token' };

/** All values of a header as sent, in order (Node keeps only the first `Authorization`). */
export function headerValues(req: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === name) values.push(req.rawHeaders[i + 1] ?? '');
  }
  return values;
}

/** The key's owner, or the error to answer: decided from headers alone, before any body is read. */
export function authenticate(
  req: IncomingMessage,
  context: MockContext,
): { ok: true; owner: KeyOwner } | { ok: false; error: ApiError } {
  const values = headerValues(req, 'authorization');
  const read = readApiKey(values.length > 1 ? values : values[0]);
  if (!read.ok) {
    const { code, message } = read.diagnostic;
    const headers = code === 'AUTH_DUPLICATE' ? {} : challenge;
    return { ok: false, error: apiError(code as ApiError['code'], message, [read.diagnostic], { headers }) };
  }
  const owner = context.keys.owner(read.key);
  if (owner !== undefined) return { ok: true, owner };
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
