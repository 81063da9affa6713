import { type Group, groupKey, type Tenant } from '../domain/model.js';
import type { ServiceCall } from './store.js';

/**
 * The stored group a get-or-create answered unchanged (none when it created one, or for another operation), read
 * in the tick the rule ran from the same tenant: the answer is then a function of that group object alone, which
 * keys the server's memo of answers (decision 10).
 */
export function shownGroup(
  call: Pick<ServiceCall, 'operation' | 'owner' | 'body'>,
  tenant: Tenant | undefined,
): Group | undefined {
  const { operation, owner, body } = call;
  const id =
    typeof body === 'object' && body !== null && 'user_group_id' in body ? body.user_group_id : undefined;
  if (operation.operationId !== 'getOrCreateUserGroup' || typeof id !== 'string') return undefined;
  return tenant?.groups.get(groupKey(owner.environment, id));
}
