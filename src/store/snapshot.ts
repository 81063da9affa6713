import { applyChange } from '../domain/changes.js';
import { emptyWorld, type Group, type TenantKeys, type World } from '../domain/model.js';

/** The database file (`db.json`): the world at one moment, plus which change logs follow it. */
export interface SnapshotFile {
  readonly format: 'user-group-mock/1';
  /** Change logs numbered this or higher are replayed on top of this snapshot. */
  readonly logGeneration: number;
  readonly nextTeamId: number;
  readonly tenants: ReadonlyArray<{
    readonly id: string;
    readonly keys: TenantKeys | null;
    readonly groups: readonly Group[];
  }>;
}

export function toSnapshot(world: World, logGeneration: number): SnapshotFile {
  return {
    format: 'user-group-mock/1',
    logGeneration,
    nextTeamId: world.nextTeamId,
    tenants: [...world.tenants.values()].map((tenant) => ({
      id: tenant.id,
      keys: tenant.keys,
      groups: [...tenant.groups.values()],
    })),
  };
}

/** Rebuilds the world from a snapshot; throws with a clear message when the file is not one of ours. */
export function fromSnapshot(file: SnapshotFile, path: string): World {
  if (file?.format !== 'user-group-mock/1' || !Array.isArray(file.tenants)) {
    throw new Error(
      `user-group-mock: ${path} is not a user-group-mock database (format "user-group-mock/1"); it was left untouched. Point --db at another file.`,
    );
  }
  const world = emptyWorld();
  for (const tenant of file.tenants) {
    applyChange(world, { op: 'putTenant', tenant: tenant.id, keys: tenant.keys });
    for (const group of tenant.groups) applyChange(world, { op: 'putGroup', tenant: tenant.id, group });
  }
  world.nextTeamId = Math.max(world.nextTeamId, file.nextTeamId);
  return world;
}
