import { describe, expect, it } from 'vitest';
import { GET_BODY } from '../../../bench/config.js';
import { update } from '../../../bench/workloads.js';

describe('update', () => {
  it('renames only the groups of its own prefix, never the group the get-or-create rows read', () => {
    const [request] = update('renamed', 3);
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const body = request?.setupRequest?.({ method: 'PUT', path: '/api/user', headers: {} }, {})?.body;
      ids.add((JSON.parse(String(body)) as { user_group_id: string }).user_group_id);
    }
    expect([...ids].sort()).toEqual(['renamed-0', 'renamed-1', 'renamed-2']);
    expect(ids.has((JSON.parse(GET_BODY) as { user_group_id: string }).user_group_id)).toBe(false);
  });
});
