import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, customerKey, jsonHeaders, testingKey, useMocks } from '../../support/http.js';
import { useProxies } from '../../support/proxy.js';
import { useTempDir } from '../../support/tempDir.js';

const mocks = useMocks();
const proxies = useProxies();
const tempDir = useTempDir('proxy-record');

describe('a recording of the proxy', () => {
  it('starts a mock that answers as the target did, and a Pact file of the exchanges, without the API key', async () => {
    const path = join(tempDir(), 'staging.json');
    const target = await mocks({
      apiKeys: [
        { key: 'staging-secret-key', environment: 'Customer' },
        { key: 'staging-test-key', environment: 'Testing' },
      ],
    });
    const proxy = await proxies({ target: target.url, record: path, pactProvider: 'staging' });
    const via = (method: string, body: unknown, key = 'staging-secret-key') =>
      call(proxy.url, method, '/api/user', { headers: jsonHeaders(key), body });
    const created = await via('GET', {
      name: 'Customer A',
      user_group_id: 'customer-a',
      mapping: { '40': '213' },
      properties: { plan: 'pro' },
    });
    await via('PUT', {
      name: 'Customer A (EU)',
      user_group_id: 'customer-a',
      mapping: { '40': '213' },
      properties: { plan: 'pro' },
    });
    await via('POST', { current_token: created.body.user_group.token });
    await via('GET', { name: 'Test B', user_group_id: 'test-b' }, 'staging-test-key');
    await via('PUT', { name: 'Test B', user_group_id: 'test-b' }, 'staging-test-key');
    const lastSeen = await via('GET', { name: 'Customer A (EU)', user_group_id: 'customer-a' });
    const testSeen = await via('GET', { name: 'Test B', user_group_id: 'test-b' }, 'staging-test-key');
    await proxy.close();

    const fixtures = await readFile(path, 'utf8');
    const pact = await readFile(path.replace(/\.json$/, '.pact.json'), 'utf8');
    for (const text of [fixtures, pact]) {
      expect(text).not.toContain('staging-secret-key');
      expect(text).not.toContain('staging-test-key');
    }
    const replay = await mocks({ fixtures: path });
    const again = await call(replay.url, 'GET', '/api/user', {
      headers: jsonHeaders(customerKey),
      body: { name: 'Customer A (EU)', user_group_id: 'customer-a' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(lastSeen.body);
    const test = await call(replay.url, 'GET', '/api/user', {
      headers: jsonHeaders(testingKey),
      body: { name: 'Test B', user_group_id: 'test-b' },
    });
    expect(test.body).toEqual(testSeen.body);
    const updated = await call(replay.url, 'PUT', '/api/user', {
      headers: jsonHeaders(customerKey),
      body: { name: 'Customer A (EU)', user_group_id: 'customer-a' },
    });
    expect(updated.body.user_group.api_environment_tag).toBe('Customer');

    const contract = JSON.parse(pact);
    expect(contract.provider).toEqual({ name: 'staging' });
    expect(contract.consumer).toEqual({ name: 'user-group-client' });
    expect(contract.metadata.pactSpecification.version).toBe('3.0.0');
    expect(contract.interactions).toHaveLength(7);
    expect(contract.interactions[0]).toMatchObject({
      request: {
        method: 'GET',
        path: '/api/user',
        headers: { Authorization: 'Token <API_KEY>' },
        body: { user_group_id: 'customer-a' },
      },
      response: { status: 200, body: created.body },
    });
  });
});
