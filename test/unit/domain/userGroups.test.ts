import { describe, expect, it } from 'vitest';
import { applyChanges } from '../../../src/domain/changes.js';
import { seededIds } from '../../../src/domain/ids.js';
import { defaultTenantId, emptyWorld, type Tenant, type World } from '../../../src/domain/model.js';
import { getOrCreate, update } from '../../../src/domain/userGroups.js';

function created(): { world: World; tenant: Tenant } {
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

describe('getOrCreate of a known id', () => {
  it('returns a plain, new answer each time, naming the stored group it shows', () => {
    const { world, tenant } = created();
    const caller = { tenant, environment: 'Customer' } as const;
    const first = getOrCreate(world, caller, { user_group_id: 'g', name: 'G' }, seededIds(2));
    const second = getOrCreate(world, caller, { user_group_id: 'g', name: 'G' }, seededIds(2));
    if (!first.ok || !second.ok) throw new Error('the read failed');
    expect(first.value.body).toEqual(second.value.body);
    expect(first.value.body).not.toBe(second.value.body);
    expect(Object.isFrozen(first.value.body)).toBe(false);
    expect(first.value.changes).toEqual([]);
    expect(first.value.shows).toBe(tenant.groups.values().next().value);
  });

  it('names no stored group when the answer shows a change', () => {
    const { tenant } = created();
    const changed = update({ tenant, environment: 'Customer' }, { user_group_id: 'g', name: 'H' });
    expect(changed.ok && changed.value.shows).toBe(undefined);
    expect(changed.ok && changed.value.changes).toHaveLength(1);
  });
});
