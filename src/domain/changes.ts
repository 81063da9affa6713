import { type Group, groupKey, type Tenant, type TenantKeys, type World } from './model.js';

/**
 * Every change to the world is one of these records: the domain produces them, the store applies them in memory
 * and persists them (they are the lines of the change log), and rollback applies their inverses.
 * Applying a record twice gives the same world as applying it once, so replaying a log is safe.
 */
export type Change =
  | { readonly op: 'putGroup'; readonly tenant: string; readonly group: Group }
  | { readonly op: 'deleteGroup'; readonly tenant: string; readonly key: string }
  | { readonly op: 'putTenant'; readonly tenant: string; readonly keys: TenantKeys | null }
  | { readonly op: 'deleteTenant'; readonly tenant: string }
  | { readonly op: 'clearTenant'; readonly tenant: string };

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Whether a value read back from a change log is a change record (the log is parsed, not trusted). */
export function isChange(value: unknown): value is Change {
  if (!isRecord(value) || typeof value.tenant !== 'string') return false;
  switch (value.op) {
    case 'putGroup': {
      const group = value.group;
      return (
        isRecord(group) &&
        typeof group.environment === 'string' &&
        typeof group.provided_id === 'string' &&
        typeof group.token === 'string' &&
        Number.isSafeInteger(group.team_id)
      );
    }
    case 'deleteGroup':
      return typeof value.key === 'string';
    case 'putTenant':
      return value.keys === null || isRecord(value.keys);
    case 'deleteTenant':
    case 'clearTenant':
      return true;
    default:
      return false;
  }
}

/** Applies one change and returns the changes that undo it (to apply in order). */
export function applyChange(world: World, change: Change): Change[] {
  switch (change.op) {
    case 'putGroup': {
      const tenant = requireTenant(world, change.tenant);
      const key = groupKey(change.group.environment, change.group.provided_id);
      const previous = tenant.groups.get(key);
      if (previous !== undefined) world.tokens.delete(previous.token);
      tenant.groups.set(key, change.group);
      world.tokens.set(change.group.token, { tenant: tenant.id, key });
      world.nextTeamId = Math.max(world.nextTeamId, change.group.team_id + 1);
      return previous === undefined
        ? [{ op: 'deleteGroup', tenant: tenant.id, key }]
        : [{ op: 'putGroup', tenant: tenant.id, group: previous }];
    }
    case 'deleteGroup': {
      const tenant = world.tenants.get(change.tenant);
      const previous = tenant?.groups.get(change.key);
      if (tenant === undefined || previous === undefined) return [];
      tenant.groups.delete(change.key);
      world.tokens.delete(previous.token);
      return [{ op: 'putGroup', tenant: tenant.id, group: previous }];
    }
    case 'putTenant': {
      const previous = world.tenants.get(change.tenant);
      if (previous !== undefined) {
        world.tenants.set(change.tenant, { ...previous, keys: change.keys });
        return [{ op: 'putTenant', tenant: change.tenant, keys: previous.keys }];
      }
      world.tenants.set(change.tenant, { id: change.tenant, keys: change.keys, groups: new Map() });
      return [{ op: 'deleteTenant', tenant: change.tenant }];
    }
    case 'deleteTenant':
    case 'clearTenant': {
      const tenant = world.tenants.get(change.tenant);
      if (tenant === undefined) return [];
      const undo: Change[] = [...tenant.groups.values()].map((group) => ({
        op: 'putGroup',
        tenant: tenant.id,
        group,
      }));
      for (const group of tenant.groups.values()) world.tokens.delete(group.token);
      tenant.groups.clear();
      if (change.op === 'clearTenant') return undo;
      world.tenants.delete(change.tenant);
      return [{ op: 'putTenant', tenant: tenant.id, keys: tenant.keys }, ...undo];
    }
  }
}

/** Applies changes in order; returns the undo list for all of them, newest first. */
export function applyChanges(world: World, changes: readonly Change[]): Change[] {
  const undo: Change[] = [];
  for (const change of changes) undo.unshift(...applyChange(world, change));
  return undo;
}

function requireTenant(world: World, id: string): Tenant {
  const tenant = world.tenants.get(id);
  if (tenant === undefined) throw new Error(`user-group-mock: change for unknown tenant "${id}"`);
  return tenant;
}
