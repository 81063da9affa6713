import type { Socket } from 'node:net';
import type { ApiError } from '../errors.js';
import { authenticate, groupTokenAsKey, sentKey } from '../pipeline/authenticate.js';
import type { PipelineRequest, Surface } from '../pipeline/pipelineRequest.js';
import { failure, ok, type Result } from '../result.js';
import type { KeyOwner, KeyRing } from '../runtime/keyRing.js';
import type { RequestStore } from '../store/store.js';

/**
 * The last key accepted on each connection. A client sends the same `Authorization` on every request of a
 * keep-alive connection, so parsing and digesting it again each time is work thrown away. A hit compares the
 * header with what the same connection sent before, and holds only while the keys are unchanged (decision 5).
 */
const accepted = new WeakMap<Socket, { header: string; generation: number; owner: KeyOwner }>();

/**
 * The pipeline's `authenticate` step with the connection's memory in front: a request that repeats the header
 * its connection had accepted takes that owner; any other runs the step, and a key it accepts is remembered.
 */
export function authenticateOnConnection(
  request: PipelineRequest,
  socket: Socket | null,
  surface: Surface & { readonly keys: KeyRing },
): ApiError | undefined {
  const { keys } = surface;
  const values = request.authorization;
  const header = values.length === 1 ? (values[0] as string) : undefined;
  const last = header === undefined || socket === null ? undefined : accepted.get(socket);
  if (last !== undefined && last.header === header && last.generation === keys.generation) {
    request.owner = last.owner;
    return undefined;
  }
  const refused = authenticate(request, surface);
  const owner = request.owner;
  if (refused === undefined && owner !== undefined && header !== undefined && socket !== null)
    accepted.set(socket, { header, generation: keys.generation, owner });
  return refused;
}

/**
 * The one way a key the key ring does not know is resolved, for the service and the admin API alike: the store is
 * asked (with PostgreSQL, a tenant made through another replica, or a group token a replica saw issued); an owner
 * found is remembered and returned, a group token is refused as one, and anything else keeps the header stage's
 * refusal.
 */
export async function resolveUnknownKey(
  authorization: readonly string[],
  refused: ApiError,
  surface: { readonly keys: KeyRing; readonly store: Pick<RequestStore, 'lookUpKey'> },
): Promise<Result<KeyOwner>> {
  const key = refused.code === 'AUTH_UNKNOWN_KEY' ? sentKey(authorization) : undefined;
  if (key === undefined) return failure(refused);
  const found = await surface.store.lookUpKey(key);
  if (found === undefined) return failure(refused);
  if (found === 'group-token') return failure(groupTokenAsKey());
  surface.keys.learn(key, found);
  return ok(found);
}
