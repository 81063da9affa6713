import type { Result } from '../result.js';
import type { OperationId } from '../spec/operations.js';
import type { RequestBodies } from '../spec/types.js';
import type { IdSource } from './ids.js';
import type { World } from './model.js';
import { type Caller, type Decision, getOrCreate, rotate, update } from './userGroups.js';

/** A rule of the service: the decision on a request body the validator has narrowed to the operation's schema. */
type Rule<B> = (world: World, caller: Caller, body: B, ids: IdSource) => Result<Decision<unknown>>;

/** The service's rules, one per operationId of the document (a drift test checks that none is missing). */
export const handlers: { readonly [K in OperationId]: Rule<RequestBodies[K]> } = {
  getOrCreateUserGroup: getOrCreate,
  updateUserGroup: (_world, caller, body) => update(caller, body),
  rotateUserGroupToken: rotate,
};

export function handle(
  operationId: OperationId,
  world: World,
  caller: Caller,
  body: unknown,
  ids: IdSource,
): Result<Decision<unknown>> {
  return (handlers[operationId] as Rule<unknown>)(world, caller, body, ids);
}
