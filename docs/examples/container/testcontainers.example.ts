import { GenericContainer, Wait } from 'testcontainers';
import { afterAll, expect, it } from 'vitest';
import { createUserGroupClient } from '../../../src/index.js';

// The image of `npm run image` (or your registry's copy), on a free port of this machine, in memory: a fresh
// state for this test file. The keyless probe says when it is ready.
const mock = await new GenericContainer('user-group-mock:latest')
  .withCommand(['serve', '--in-memory'])
  .withEnvironment({ USER_GROUP_MOCK_ADMIN_KEY: 'test-admin-key' })
  .withExposedPorts(4010)
  .withWaitStrategy(Wait.forHttp('/__admin/health/live', 4010))
  .start();
afterAll(() => mock.stop());

const baseUrl = `http://${mock.getHost()}:${mock.getMappedPort(4010)}`;
// The client under test, pointed at the container with the mock's default Customer key. Use your own client here.
const client = createUserGroupClient({ baseUrl, apiKey: 'dev-customer-key' });

it('creates a group once, then returns it with the same token', async () => {
  const first = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
  const again = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
  expect(again.new_user_group).toBe(false);
  expect(again.user_group.token).toBe(first.user_group.token);
});

it('sent only requests that keep the contract', async () => {
  const answer = await fetch(`${baseUrl}/__admin/requests?invalid=true`, {
    headers: { 'x-admin-key': 'test-admin-key' },
  });
  expect(await answer.json()).toEqual([]);
});
