import { failure, ok, type Result } from '../result.js';
import type { SeedGroupRequest } from '../spec/types.js';
import { errorAt } from '../validate/diagnostic.js';
import type { IdSource } from './ids.js';
import { type Group, groupKey, type Tenant, type World } from './model.js';
import { type Decision, newGroup } from './userGroups.js';

/** A group to put in place directly (admin API, `--fixtures`), with an optional known token and team_id. */
export type GroupSeed = Readonly<SeedGroupRequest>;

/** Seeds one group; 409 when the id is taken in that environment or the token or team_id is in use. */
export function seedGroup(
  world: World,
  tenant: Tenant,
  seed: GroupSeed,
  ids: IdSource,
): Result<Decision<Group>> {
  const key = groupKey(seed.environment, seed.user_group_id);
  if (tenant.groups.has(key)) {
    return conflict(
      `a group "${seed.user_group_id}" already exists in ${seed.environment}; reset first or use another id`,
      '/body/user_group_id',
    );
  }
  if (seed.token !== undefined && world.tokens.has(seed.token)) {
    return conflict(
      'another group already holds this token; tokens are unique across all tenants',
      '/body/token',
    );
  }
  if (seed.team_id !== undefined && teamIdInUse(world, seed.team_id)) {
    return conflict(
      `team_id ${seed.team_id} is already used; omit team_id to get a fresh one`,
      '/body/team_id',
    );
  }
  const group = newGroup(world, ids, seed.environment, seed);
  return ok({ body: group, changes: [{ op: 'putGroup', tenant: tenant.id, group }] });
}

function teamIdInUse(world: World, teamId: number): boolean {
  for (const tenant of world.tenants.values())
    for (const group of tenant.groups.values()) if (group.team_id === teamId) return true;
  return false;
}

const conflict = (message: string, path: string): Result<never> =>
  failure(errorAt('GROUP_EXISTS', path, message));
