import { describe, expect, it } from 'vitest';
import { defaultTenantId } from '../../../src/domain/model.js';
import { type Owned, PipelineRequest } from '../../../src/pipeline/pipelineRequest.js';
import { type Operation, operations } from '../../../src/spec/operations.js';
import { shownGroup } from '../../../src/store/shownGroup.js';
import { worldWithGroup } from '../../support/world.js';

describe('shownGroup', () => {
  const { tenant } = worldWithGroup();
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
    expect(shownGroup(request('getOrCreateUserGroup', { user_group_id: 'g', name: 'G' }), tenant)).toBe(
      stored,
    );
  });

  it('keys nothing for an id not stored, another environment, or another operation', () => {
    expect(shownGroup(request('getOrCreateUserGroup', { user_group_id: 'h', name: 'H' }), tenant)).toBe(
      undefined,
    );
    const other = Object.assign(request('getOrCreateUserGroup', { user_group_id: 'g', name: 'G' }), {
      owner: { ...owner, environment: 'Testing' as const },
    });
    expect(shownGroup(other, tenant)).toBe(undefined);
    expect(shownGroup(request('updateUserGroup', { user_group_id: 'g', name: 'G' }), tenant)).toBe(undefined);
  });
});
