import { afterAll, expect, it } from 'vitest';
import { createUserGroupClient } from '../../../src/index.js';
import { UserGroupMockContainer } from '../../../src/testing/testcontainers.js';

// The image of `npm run image` (or your registry's copy), on a free port of this machine, in memory: a fresh
// state for this test file. It is ready once its readiness probe answers; connect() gives the same awaitable
// controls as createMockServer()'s, over /__admin with the container's admin key.
const container = await new UserGroupMockContainer('user-group-mock:latest').start();
const mock = await container.connect();
afterAll(async () => {
  await mock.close();
  await container.stop();
});

// This file's own tenant, and the client under test with its Customer key. Use your own client here.
const tenant = await mock.createTenant();
const client = createUserGroupClient({ baseUrl: mock.url, apiKey: tenant.keys.Customer });

it('creates a group once, then returns it with the same token', async () => {
  const first = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
  const again = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
  expect(again.new_user_group).toBe(false);
  expect((await tenant.token(again.user_group.token))?.provided_id).toBe('customer-a');
  expect(again.user_group.token).toBe(first.user_group.token);
});

it('sent only requests that keep the contract', async () => {
  expect(await tenant.requests({ invalid: true })).toEqual([]);
  // Requests without the tenant's key (none, `Token undefined`) land in the default tenant's journal.
  expect(await mock.requests({ invalid: true })).toEqual([]);
});
