import { handle } from '../domain/handlers.js';
import type { IdSource } from '../domain/ids.js';
import type { World } from '../domain/model.js';
import type { Decision } from '../domain/userGroups.js';
import { tenantRemoved } from '../errors.js';
import { failure, type Result } from '../result.js';
import type { OperationId } from '../spec/operations.js';
import type { Owned } from './pipelineRequest.js';

/**
 * Step 8, operation: the rule of the operation over the world, for the key's tenant and environment. Returns the
 * answer's body and the changes to store; storing them is the caller's part.
 */
export function runOperation(request: Owned, world: World, ids: IdSource): Result<Decision<unknown>> {
  const { operation, owner } = request;
  const tenant = world.tenants.get(owner.tenant);
  if (tenant === undefined) return failure(tenantRemoved());
  return handle(
    operation.operationId as OperationId,
    world,
    { tenant, environment: owner.environment },
    request.body,
    ids,
  );
}
