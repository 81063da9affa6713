import { afterAll, expect, it } from 'vitest';
import { createMockServer, createUserGroupClient } from '../../../src/index.js';

// One mock per test file, in this process: 127.0.0.1, a free port, in memory.
const mock = await createMockServer();
// This file's own tenant: its own API keys, groups, journal and faults. Other files running in parallel
// (each with its own tenant, or its own mock) never see them.
const tenant = await mock.createTenant();
afterAll(() => mock.close());

// The client under test, pointed at the mock with the tenant's Customer key. Use your own client here.
const client = createUserGroupClient({ baseUrl: mock.url, apiKey: tenant.api_keys.Customer });

it('creates a group once, then returns it with the same token', async () => {
  const first = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
  const again = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
  expect(again.new_user_group).toBe(false);
  expect(again.user_group.token).toBe(first.user_group.token);
});

it('keeps only the newest token live after a rotation', async () => {
  const { user_group } = await client.getOrCreate({ name: 'Customer B', user_group_id: 'customer-b' });
  const rotated = await client.rotateToken(user_group.token);
  expect(await mock.token(user_group.token, tenant.id)).toBeUndefined();
  expect((await mock.token(rotated.user_group.token, tenant.id))?.provided_id).toBe('customer-b');
});

it('reports a 503 of the service as an error', async () => {
  await mock.injectFault({ operationId: 'updateUserGroup', status: 503 }, tenant.id);
  await expect(client.update({ user_group_id: 'customer-a', name: 'Customer A (EU)' })).rejects.toMatchObject(
    {
      status: 503,
    },
  );
});

it('sent only requests that keep the contract', async () => {
  // Every request that broke the User Group Service's contract is here, with diagnostics naming the mistake.
  expect(await mock.requests({ invalid: true }, tenant.id)).toEqual([]);
});
