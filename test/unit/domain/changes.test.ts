import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyChange, applyChanges, type Change } from '../../../src/domain/changes.js';
import {
  type Environment,
  environments,
  type Group,
  groupKey,
  type Tenant,
  type World,
} from '../../../src/domain/model.js';

const tenantIds = ['default', 't1', 't2'] as const;
const providedIds = ['a', 'b', 'c'] as const;

/**
 * A group at (tenant, environment, id). Its token is one of a few versions of a token owned by that place alone,
 * so that a token is never held by two groups at once, as in the service (a put either keeps the group's token or
 * gives it a new one).
 */
const groupAt = (tenant: string): fc.Arbitrary<Group> =>
  fc
    .record({
      environment: fc.constantFrom<Environment>(...environments),
      provided_id: fc.constantFrom(...providedIds),
      version: fc.integer({ min: 0, max: 2 }),
      team_id: fc.integer({ min: 1, max: 20 }),
      name: fc.constantFrom('A', 'B'),
      properties: fc.constantFrom(null, { colour: 'red' }),
    })
    .map(({ version, ...group }) => ({
      ...group,
      token: `tok-${tenant}-${group.environment}-${group.provided_id}-${version}`,
      mapping: null,
    }));

const keysArbitrary = fc.constantFrom(
  null,
  { Customer: 'ck', Testing: 'tk' },
  { Customer: 'c2', Testing: 't2' },
);

/** A consistent world: a few tenants holding groups, the token index over them, nextTeamId above every team id. */
const worldArbitrary: fc.Arbitrary<World> = fc
  .record({
    tenants: fc.subarray([...tenantIds], { minLength: 0 }),
    groups: fc.array(
      fc.constantFrom(...tenantIds).chain((t) => groupAt(t).map((g) => [t, g] as const)),
      {
        maxLength: 8,
      },
    ),
    keys: fc.array(keysArbitrary, { minLength: tenantIds.length, maxLength: tenantIds.length }),
    spare: fc.integer({ min: 0, max: 5 }),
  })
  .map(({ tenants, groups, keys, spare }) => {
    const world: World = { tenants: new Map(), tokens: new Map(), nextTeamId: 1 };
    tenants.forEach((id, i) => {
      world.tenants.set(id, { id, keys: keys[i] ?? null, groups: new Map() });
    });
    for (const [tenantId, group] of groups) {
      const tenant = world.tenants.get(tenantId);
      const key = groupKey(group.environment, group.provided_id);
      if (tenant === undefined || tenant.groups.has(key)) continue;
      tenant.groups.set(key, group);
      world.tokens.set(group.token, { tenant: tenantId, key });
      world.nextTeamId = Math.max(world.nextTeamId, group.team_id + 1);
    }
    world.nextTeamId += spare;
    return world;
  });

const changeArbitrary: fc.Arbitrary<Change> = fc.constantFrom(...tenantIds).chain((tenant) =>
  fc.oneof(
    groupAt(tenant).map((group): Change => ({ op: 'putGroup', tenant, group })),
    fc
      .record({
        environment: fc.constantFrom<Environment>(...environments),
        id: fc.constantFrom(...providedIds),
      })
      .map(({ environment, id }): Change => ({ op: 'deleteGroup', tenant, key: groupKey(environment, id) })),
    keysArbitrary.map((keys): Change => ({ op: 'putTenant', tenant, keys })),
    fc.constant<Change>({ op: 'deleteTenant', tenant }),
    fc.constant<Change>({ op: 'clearTenant', tenant }),
  ),
);

/**
 * The changes the store could be given for `world`: a group is only put into a tenant that exists by then (the
 * domain never does otherwise, and `applyChange` refuses it).
 */
function applicable(world: World, changes: readonly Change[]): Change[] {
  const present = new Set(world.tenants.keys());
  return changes.filter((change) => {
    if (change.op === 'putTenant') present.add(change.tenant);
    if (change.op === 'deleteTenant') present.delete(change.tenant);
    return change.op !== 'putGroup' || present.has(change.tenant);
  });
}

const copy = (world: World): World => ({
  tenants: new Map(
    [...world.tenants].map(([id, t]): [string, Tenant] => [id, { ...t, groups: new Map(t.groups) }]),
  ),
  tokens: new Map(world.tokens),
  nextTeamId: world.nextTeamId,
});

/** The world's content, in an order that does not depend on the order of insertion. */
const contentOf = (world: World) => ({
  tenants: [...world.tenants.values()]
    .map((t) => ({ id: t.id, keys: t.keys, groups: [...t.groups].sort(([a], [b]) => a.localeCompare(b)) }))
    .sort((a, b) => a.id.localeCompare(b.id)),
  tokens: [...world.tokens].sort(([a], [b]) => a.localeCompare(b)),
});

const worldAndChanges = fc
  .tuple(worldArbitrary, fc.array(changeArbitrary, { maxLength: 12 }))
  .map(([world, changes]) => ({ world, changes: applicable(world, changes) }));

describe('applyChanges and its undo list', () => {
  it('gives back the original tenants, groups and token index when the undo list is applied', () => {
    fc.assert(
      fc.property(worldAndChanges, ({ world, changes }) => {
        const original = copy(world);
        const undo = applyChanges(world, changes);
        const afterChanges = world.nextTeamId;
        applyChanges(world, undo);
        expect(contentOf(world)).toEqual(contentOf(original));
        // The undo does not lower nextTeamId: a team id handed out once is never handed out again.
        expect(world.nextTeamId).toBe(afterChanges);
        const put = changes.flatMap((c) => (c.op === 'putGroup' ? [c.group.team_id + 1] : []));
        expect(world.nextTeamId).toBe(Math.max(original.nextTeamId, ...put));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same world when each change is applied twice as when it is applied once', () => {
    fc.assert(
      fc.property(worldAndChanges, ({ world, changes }) => {
        const twice = copy(world);
        applyChanges(world, changes);
        for (const change of changes) {
          applyChange(twice, change);
          applyChange(twice, change);
        }
        expect(contentOf(twice)).toEqual(contentOf(world));
        expect(twice.nextTeamId).toBe(world.nextTeamId);
      }),
      { numRuns: 500 },
    );
  });
});
