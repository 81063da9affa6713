import type { Result } from '../result.js';
import type { OperationId } from '../spec/operations.js';
import type { RequestBodies } from '../spec/types.js';
import type { IdSource } from './ids.js';
import type { World } from './model.js';
import { type Caller, type Decision, getOrCreate, rotate, update } from './userGroups.js';

/** The service's rules, one per operationId of the document (a drift test checks that none is missing). */
export const handlers: {
  readonly [K in OperationId]: (
    world: World,
    caller: Caller,
    body: RequestBodies[K],
    ids: IdSource,
  ) => Result<Decision<unknown>>;
} = {
  getOrCreateUserGroup: (world, caller, body, ids) => getOrCreate(world, caller, body, ids),
  updateUserGroup: (_world, caller, body) => update(caller, body),
  rotateUserGroupToken: (world, caller, body, ids) => rotate(world, caller, body, ids),
};

/** Runs the rule for a validated body (the validator has narrowed `body` to the operation's schema). */
export function handle(
  operationId: OperationId,
  world: World,
  caller: Caller,
  body: unknown,
  ids: IdSource,
): Result<Decision<unknown>> {
  const handler = handlers[operationId] as (
    world: World,
    caller: Caller,
    body: unknown,
    ids: IdSource,
  ) => Result<Decision<unknown>>;
  return handler(world, caller, body, ids);
}
