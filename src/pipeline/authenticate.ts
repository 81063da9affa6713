import type { ApiError } from '../errors.js';
import type { KeyOwner, KeyRing } from '../runtime/keyRing.js';
import { authError, readApiKey } from '../validate/headers.js';
import type { PipelineRequest, Surface } from './pipelineRequest.js';

/**
 * The authenticate step: `Authorization: Token <API_KEY>` in its one well-formed shape, decided from the headers alone,
 * before any body is read. Given the mock's keys, the key must also be known; it then sets `owner` (a key the ring does
 * not know, maybe a group token sent in its place, is then asked of the store: `resolveUnknownKey`). Without them (the
 * validator library) only the form is checked. A malformed header that still carries a known key is refused with
 * `owner` set to the key's owner.
 */
export function authenticate(request: PipelineRequest, surface: Surface): ApiError | undefined {
  const { keys } = surface;
  const values = request.authorization;
  const read = readApiKey(values.length > 1 ? values : values[0]);
  if (!read.ok) {
    // A known key in a malformed header (`Bearer <key>`, the key without `Token`): refused, but the key's owner is
    // named, so that the mistake is journaled where that key's tenant looks for it.
    if (keys !== undefined) request.owner = recogniseKey(values, keys);
    return read.error;
  }
  if (keys === undefined) return undefined;
  const key = read.value;
  const owner = keys.owner(key);
  if (owner !== undefined) {
    request.owner = owner;
    return undefined;
  }
  if (keys.retiredToken(key)) return groupTokenAsKey('retired');
  const removed = keys.removedTenant(key);
  if (removed !== undefined)
    return authError(
      'AUTH_UNKNOWN_KEY',
      `the API key in Authorization is ${removedKeyOf(removed)} (a test's tenant is removed when its test ends): most likely a request sent after its test ended, by a promise the test left running; await every request before the test ends`,
    );
  const unquoted = /^(["'])(.+)\1$/.exec(key)?.[2];
  // `Token token="KEY"`, the form of other Token-scheme APIs (Rails): a name and "=" before the key.
  const named = /^(token|key|api_?key)=/i.exec(key)?.[0];
  const message =
    key === 'undefined' || key === 'null'
      ? `the API key in Authorization is the text "${key}": the variable meant to hold the key was not set when the header was made (an unset environment variable, or a tenant's keys read before createTenant() resolved); set it to a key of this server`
      : unquoted !== undefined && keys.owner(unquoted) !== undefined
        ? 'the API key in Authorization is in quotes; send it bare: "Authorization: Token <API_KEY>"'
        : named !== undefined
          ? `Authorization has "${named}" before the key (the Token ${named.toLowerCase()}"…" form of other APIs); this API takes the key alone: "Authorization: Token <API_KEY>"`
          : 'the API key in Authorization is not known to this server; use a key printed at start-up (or given with --api-key), or a tenant key from POST /__admin/tenants';
  return authError('AUTH_UNKNOWN_KEY', message);
}

/**
 * The refusal of a user group token sent in the API key's place: a group's current token, or one a rotation has
 * replaced (`retired`, when the mock remembers that rotation).
 */
export function groupTokenAsKey(token: 'current' | 'retired' = 'current'): ApiError {
  const which =
    token === 'retired'
      ? 'a user group token (one a rotation has since replaced), not an API key'
      : 'a user group token, not an API key';
  const message = `Authorization carries ${which}. The group token only identifies the viewing group in an embedded dashboard; the API key is a different credential: send "Authorization: Token <API_KEY>"`;
  return authError('AUTH_GROUP_TOKEN_AS_KEY', message);
}

/** The owner of a known key found anywhere in malformed Authorization values (each word is tried). */
function recogniseKey(values: readonly string[], keys: KeyRing): KeyOwner | undefined {
  for (const value of values)
    for (const word of value.split(/[ \t]+/)) {
      const owner = word === '' ? undefined : keys.owner(word);
      if (owner !== undefined) return owner;
    }
  return undefined;
}

/** How a refusal names the key of a removed tenant; `removedTenantIn` reads the tenant back from the message. */
const removedKeyOf = (tenant: string): string => `a key of tenant ${tenant}, which has been removed`;

/** The removed tenant a refusal's message names as the key's (the CI fixture's report of a late request). */
export function removedTenantIn(message: string): string | undefined {
  return /a key of tenant (\S+), which has been removed/.exec(message)?.[1];
}

/** The API key of one well-formed `Authorization: Token <key>`, else undefined. */
export function sentKey(authorization: readonly string[]): string | undefined {
  const read = authorization.length === 1 ? readApiKey(authorization[0]) : undefined;
  return read?.ok === true ? read.value : undefined;
}
