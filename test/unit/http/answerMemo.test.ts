import { describe, expect, it } from 'vitest';
import { defaultTenantId, type Group } from '../../../src/domain/model.js';
import { memoisedAnswer, shownGroup } from '../../../src/http/answerMemo.js';
import { type Owned, PipelineRequest } from '../../../src/pipeline/pipelineRequest.js';
import { type Operation, operations } from '../../../src/spec/operations.js';
import { worldWithGroup } from '../../support/world.js';

const group: Group = {
  environment: 'Customer',
  team_id: 1,
  token: 'a'.repeat(64),
  name: 'G',
  provided_id: 'g',
  mapping: null,
  properties: null,
};

describe('memoisedAnswer', () => {
  it('serialises the answer of one group object once and sends that text again', () => {
    const first = memoisedAnswer(group, { success: 1, name: group.name });
    const again = memoisedAnswer(group, { success: 1, name: 'ignored: the group is unchanged' });
    expect(again).toBe(first);
    expect(first).toEqual({ text: '{"success":1,"name":"G"}', length: '24' });
  });

  it('serialises afresh for a changed group, which is a new object', () => {
    const before = memoisedAnswer(group, { name: group.name });
    const changed: Group = { ...group, name: 'Hé' };
    const after = memoisedAnswer(changed, { name: changed.name });
    expect(after).not.toBe(before);
    expect(after).toEqual({ text: '{"name":"Hé"}', length: '14' });
  });
});

describe('shownGroup', () => {
  const { world, tenant } = worldWithGroup();
  const owner = { tenant: defaultTenantId, environment: 'Customer' } as const;
  const request = (operationId: string, body: unknown): Owned =>
    Object.assign(new PipelineRequest('GET', '/api/user', { bodySent: true }), {
      operation: operations().find((o) => o.operationId === operationId) as Operation,
      owner,
      body,
    });

  it('keys a get-or-create by the stored group object its id names', () => {
    const stored = tenant.groups.values().next().value;
    expect(stored).toBeDefined();
    expect(shownGroup(request('getOrCreateUserGroup', { user_group_id: 'g', name: 'G' }), world)).toBe(
      stored,
    );
  });

  it('keys nothing for an id not stored, another environment, or another operation', () => {
    expect(shownGroup(request('getOrCreateUserGroup', { user_group_id: 'h', name: 'H' }), world)).toBe(
      undefined,
    );
    const other = Object.assign(request('getOrCreateUserGroup', { user_group_id: 'g', name: 'G' }), {
      owner: { ...owner, environment: 'Testing' as const },
    });
    expect(shownGroup(other, world)).toBe(undefined);
    expect(shownGroup(request('updateUserGroup', { user_group_id: 'g', name: 'G' }), world)).toBe(undefined);
  });
});
