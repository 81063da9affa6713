import { applyChanges } from '../../src/domain/changes.js';
import { seededIds } from '../../src/domain/ids.js';
import { defaultTenantId, emptyWorld, type Tenant, type World } from '../../src/domain/model.js';
import { getOrCreate } from '../../src/domain/userGroups.js';

/** A world whose default tenant holds one group, `g` named `G`, in the Customer environment. */
export function worldWithGroup(): { world: World; tenant: Tenant } {
  const world = emptyWorld();
  const tenant = world.tenants.get(defaultTenantId) as Tenant;
  const made = getOrCreate(
    world,
    { tenant, environment: 'Customer' },
    { user_group_id: 'g', name: 'G' },
    seededIds(1),
  );
  if (!made.ok) throw new Error('the group was not created');
  applyChanges(world, made.value.changes);
  return { world, tenant };
}
