import { describe, expect, it } from 'vitest';
import { seededIds } from '../../../src/domain/ids.js';
import type { Tenant } from '../../../src/domain/model.js';
import { getOrCreate, rotate, update } from '../../../src/domain/userGroups.js';
import { worldWithGroup } from '../../support/world.js';

const created = worldWithGroup;

describe('getOrCreate of a known id', () => {
  it('returns a plain, new answer each time, and changes nothing', () => {
    const { world, tenant } = created();
    const caller = { tenant, environment: 'Customer' } as const;
    const first = getOrCreate(world, caller, { user_group_id: 'g', name: 'G' }, seededIds(2));
    const second = getOrCreate(world, caller, { user_group_id: 'g', name: 'G' }, seededIds(2));
    if (!first.ok || !second.ok) throw new Error('the read failed');
    expect(first.value.body).toEqual(second.value.body);
    expect(first.value.body).not.toBe(second.value.body);
    expect(Object.isFrozen(first.value.body)).toBe(false);
    expect(first.value.changes).toEqual([]);
    expect(Object.keys(first.value)).toEqual(['body', 'changes']);
  });
});

describe('the notice of a get-or-create whose fields differ', () => {
  it.each([
    [{ name: 'H' }, 'its name differs from the request'],
    [{ mapping: { a: 'b' } }, 'its mapping differs from the request'],
    [{ properties: { a: 1 } }, 'its properties differ from the request'],
    [{ name: 'H', properties: { a: 1 } }, 'its name and properties differ from the request'],
    [
      { name: 'H', mapping: { a: 'b' }, properties: { a: 1 } },
      'its name, mapping and properties differ from the request',
    ],
  ])('names %j with a verb that agrees', (fields, words) => {
    const { world, tenant } = created();
    const answer = getOrCreate(
      world,
      { tenant, environment: 'Customer' },
      { user_group_id: 'g', name: 'G', ...fields },
      seededIds(2),
    );
    expect(answer.ok && answer.value.notice).toContain(words);
  });
});

describe('a key of the other environment', () => {
  it('refuses an update of an id that only the other environment holds, naming it and the key to use', () => {
    const { tenant } = created();
    const refused = update({ tenant, environment: 'Testing' }, { user_group_id: 'g', name: 'H' });
    if (refused.ok) throw new Error('the update went through');
    expect(refused.error.code).toBe('GROUP_NOT_FOUND');
    expect(refused.error.message).toContain('but the Customer environment has one');
    expect(refused.error.message).toContain("update it with this tenant's Customer key");
    expect(refused.error.message).not.toContain('create it first');
    expect(refused.error.details[0]?.message).toBe('no group "g" in Testing; it is in Customer');
  });

  it('still says to create an id that neither environment holds', () => {
    const { tenant } = created();
    const refused = update({ tenant, environment: 'Testing' }, { user_group_id: 'nope', name: 'H' });
    expect(!refused.ok && refused.error.message).toContain('create it first with GET /api/user');
  });

  it('refuses a rotation of a current token of the other environment, naming it and the key to use', () => {
    const { world, tenant } = created();
    const token = (tenant.groups.values().next().value as { token: string }).token;
    const refused = rotate(world, { tenant, environment: 'Testing' }, { current_token: token }, seededIds(2));
    if (refused.ok) throw new Error('the rotation went through');
    expect(refused.error.code).toBe('TOKEN_NOT_FOUND');
    expect(refused.error.message).toContain(
      'current_token is the token of group "g" in the Customer environment, not in the Testing environment of this API key',
    );
    expect(refused.error.message).not.toContain('rotated already');
    const unknown = rotate(
      world,
      { tenant, environment: 'Testing' },
      { current_token: 'f'.repeat(64) },
      seededIds(2),
    );
    expect(!unknown.ok && unknown.error.message).toContain('it may have been rotated already');
  });

  it('does not name a token of another tenant', () => {
    const { world } = created();
    const other: Tenant = { id: 't-2', keys: null, groups: new Map() };
    world.tenants.set(other.id, other);
    const token = [...world.tokens.keys()][0] as string;
    const refused = rotate(
      world,
      { tenant: other, environment: 'Testing' },
      { current_token: token },
      seededIds(2),
    );
    expect(!refused.ok && refused.error.message).toContain('it may have been rotated already');
  });
});
