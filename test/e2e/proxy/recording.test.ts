import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
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

describe('the environment of a recorded group', () => {
  it('is learnt from an update of the same key, and where nothing tells it, recorded as Customer and said on close', async () => {
    const path = join(tempDir(), 'seen.json');
    const target = await mocks({
      apiKeys: [
        { key: 'test-key-1', environment: 'Testing' },
        { key: 'test-key-2', environment: 'Testing' },
      ],
    });
    const warnings: string[] = [];
    const proxy = await proxies({ target: target.url, record: path, onWarning: (m) => warnings.push(m) });
    const via = (method: string, id: string, key: string) =>
      call(proxy.url, method, '/api/user', {
        headers: jsonHeaders(key),
        body: { name: id, user_group_id: id },
      });
    await via('GET', 'only-created', 'test-key-1');
    await via('GET', 'then-updated', 'test-key-2');
    await via('PUT', 'then-updated', 'test-key-2');
    await proxy.close();

    const fixtures = JSON.parse(await readFile(path, 'utf8'));
    expect(
      fixtures.groups.map((g: { user_group_id: string; environment: string }) => [
        g.user_group_id,
        g.environment,
      ]),
    ).toEqual([
      ['only-created', 'Customer'],
      ['then-updated', 'Testing'],
    ]);
    expect(warnings).toEqual([
      `user-group-mock: ${path} records 1 group(s) as Customer without knowing their environment ("only-created"): their API key was seen only in get-or-create, whose answer does not say it. Where they are Testing groups, change "environment" in the file, or let the client update or rotate once through the proxy before it stops.`,
    ]);
  });
});

describe('a recording that cannot be written', () => {
  it.each([
    [
      'a folder that does not exist',
      (dir: string) => join(dir, 'rec', 'seen.json'),
      'rec does not exist',
      'mkdir -p',
    ],
    [
      'a file in place of the folder',
      (dir: string) => {
        writeFileSync(join(dir, 'rec'), '');
        return join(dir, 'rec', 'seen.json');
      },
      'rec is not a folder',
      'give a file path inside a folder',
    ],
    ['a folder as the path', (dir: string) => dir, 'it is a folder', 'give a file inside it'],
  ])(
    'is refused at the start when the path names %s, naming the folder and the fix',
    async (_case, pathIn, why, fix) => {
      const target = await mocks();
      const path = pathIn(tempDir());
      const started = proxies({ target: target.url, record: path });
      await expect(started).rejects.toThrow(
        `user-group-mock: cannot record to ${path} (the record option (--record))`,
      );
      await expect(started).rejects.toThrow(why);
      await expect(started).rejects.toThrow(fix);
    },
  );

  it('warns once when a write fails, keeps what it sees, and writes it all once the folder is back', async () => {
    const target = await mocks();
    const folder = join(tempDir(), 'rec');
    mkdirSync(folder);
    const path = join(folder, 'seen.json');
    const warnings: string[] = [];
    const proxy = await proxies({ target: target.url, record: path, onWarning: (m) => warnings.push(m) });
    const via = (id: string) =>
      call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: { name: id, user_group_id: id } });
    rmSync(folder, { recursive: true });
    await via('a');
    await vi.waitFor(() => expect(warnings).toHaveLength(1), { timeout: 10_000, interval: 50 });
    await via('b');
    await new Promise((resolve) => setTimeout(resolve, 600)); // room for another failing write, said no more
    mkdirSync(folder);
    await via('c');
    await vi.waitFor(() => expect(warnings).toHaveLength(2), { timeout: 10_000, interval: 50 });

    expect(warnings[0]).toMatch(/^user-group-mock: cannot write the recording .*seen\.json \(ENOENT/);
    expect(warnings[0]).toContain('Check that the folder exists');
    expect(warnings[1]).toBe(
      `user-group-mock: the recording is written to ${path} again, with everything seen meanwhile`,
    );
    const fixtures = JSON.parse(await readFile(path, 'utf8'));
    expect(fixtures.groups.map((g: { user_group_id: string }) => g.user_group_id)).toEqual(['a', 'b', 'c']);
  });

  it('makes close() reject saying what is lost and where when the last write fails', async () => {
    const target = await mocks();
    const folder = join(tempDir(), 'rec');
    mkdirSync(folder);
    const path = join(folder, 'seen.json');
    const proxy = await proxies({ target: target.url, record: path, onWarning: () => undefined });
    rmSync(folder, { recursive: true });
    await call(proxy.url, 'GET', '/api/user', {
      headers: jsonHeaders(),
      body: { name: 'A', user_group_id: 'a' },
    });

    const closed = proxy.close();

    await expect(closed).rejects.toMatchObject({ name: 'RecordingLostError' });
    await expect(closed).rejects.toThrow(
      `user-group-mock: the recording could not be written to ${path} and ${join(folder, 'seen.pact.json')} (ENOENT`,
    );
    await expect(closed).rejects.toThrow(
      'the last 1 exchange(s) seen are lost; nothing was ever written there',
    );
  });
});
