import { expect, it } from 'vitest';
import { createUserGroupClient } from '../../../src/index.js';
import { useUserGroupMock } from '../../../src/testing/vitest.js';

// One mock for this file, in this process (127.0.0.1, a free port, in memory), and a tenant of its own for each
// test: its own API keys, groups, journal and faults. After each test, any request that arrived during it and
// broke the contract fails it, with the fix: a mistake of the test's client, or a request no tenant's key let in
// (no Authorization, `Token undefined`, `Bearer`).
const fixture = useUserGroupMock();

// The client under test, pointed at the mock with the test's Customer key. Use your own client here.
const clientOf = () => createUserGroupClient({ baseUrl: fixture.url, apiKey: fixture.tenant.keys.Customer });

it('creates a group once, then returns it with the same token', async () => {
  const client = clientOf();
  const first = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
  const again = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
  expect(again.new_user_group).toBe(false);
  expect(again.user_group.token).toBe(first.user_group.token);
});

it('keeps only the newest token live after a rotation', async () => {
  const client = clientOf();
  const { user_group } = await client.getOrCreate({ name: 'Customer B', user_group_id: 'customer-b' });
  const rotated = await client.rotateToken(user_group.token);
  expect(await fixture.tenant.token(user_group.token)).toBeUndefined();
  expect((await fixture.tenant.token(rotated.user_group.token))?.provided_id).toBe('customer-b');
});

it('reports a 503 of the service as an error', async () => {
  // A control misused (a misspelt operationId, a status below 400) rejects, naming the fix.
  await fixture.tenant.injectFault({ operationId: 'updateUserGroup', status: 503 });
  await expect(
    clientOf().update({ user_group_id: 'customer-a', name: 'Customer A (EU)' }),
  ).rejects.toMatchObject({ status: 503 });
});
