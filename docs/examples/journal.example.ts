import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMockServer, createUserGroupClient, type MockServer } from '../../src/index.js';

let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer(); // 127.0.0.1, a free port, in memory, keys dev-customer-key / dev-testing-key
});
afterAll(async () => mock.close());

it('sends only requests the User Group Service accepts', async () => {
  // Replace this with your own client, pointed at mock.url.
  const client = createUserGroupClient({ baseUrl: mock.url, apiKey: 'dev-customer-key' });
  const { user_group } = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
  await client.update({ user_group_id: 'customer-a', properties: { plan: 'enterprise' } });
  await client.rotateToken(user_group.token);

  // Every request that broke the contract is in the journal, with diagnostics naming the mistake.
  const journal = await fetch(`${mock.url}/__admin/requests?invalid=true`);
  expect(await journal.json()).toEqual([]);
});
