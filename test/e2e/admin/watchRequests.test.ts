import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../src/index.js';
import { call, jsonHeaders, useMocks } from '../../support/http.js';
import { useProxies } from '../../support/proxy.js';

const start = useMocks();
const startProxy = useProxies();

describe('watchRequests (the journal, as it is written, in process)', () => {
  it('calls a plain function with each entry as requests() lists it, until it is unsubscribed', async () => {
    const mock = await start();
    const heard: JournalEntry[] = [];
    const stop = await mock.watchRequests((entry) => heard.push(entry));
    await mock.api('GET', { user_group_id: 'a', name: 'A' });
    await mock.api('GET', { name: 'A', userGroupId: 'a' });
    expect(heard).toEqual(await mock.requests());
    expect(heard.map((entry) => [entry.status, entry.fault])).toEqual([
      [200, null],
      [400, 'client'],
    ]);
    expect(heard[0]?.requestBody).toEqual({ user_group_id: 'a', name: 'A' });
    stop();
    await mock.api('GET', { user_group_id: 'b', name: 'B' });
    expect(heard).toHaveLength(2);
  });

  it('tells an object watcher when the journal is emptied', async () => {
    const mock = await start();
    const heard: string[] = [];
    await mock.watchRequests({
      entry: (entry) => heard.push(`entry ${entry.status}`),
      cleared: () => heard.push('cleared'),
    });
    await mock.api('GET', { user_group_id: 'a', name: 'A' });
    await mock.clearRequests();
    expect(heard).toEqual(['entry 200', 'cleared']);
  });

  it('refuses at once what is neither a function nor { entry }, and the mock keeps serving', async () => {
    const mock = await start();
    const wrong = { recorded: () => undefined } as unknown as Parameters<typeof mock.watchRequests>[0];
    await expect(mock.watchRequests(wrong)).rejects.toThrow(
      /^user-group-mock: watchRequests: takes a function/,
    );
    await expect(mock.watchRequests(wrong)).rejects.toMatchObject({
      name: 'MockControlError',
      code: 'VALIDATION_FAILED',
    });
    expect((await mock.api('GET', { user_group_id: 'a', name: 'A' })).status).toBe(200);
  });

  it('calls a plain function with each exchange through the proxy', async () => {
    const target = await start();
    const proxy = await startProxy({ target: target.url });
    const heard: JournalEntry[] = [];
    proxy.watchRequests((entry) => heard.push(entry));
    const body = { user_group_id: 'a', name: 'A' };
    expect((await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body })).status).toBe(200);
    expect(heard.map((entry) => [entry.operationId, entry.status])).toEqual([['getOrCreateUserGroup', 200]]);
    expect(heard).toEqual(await proxy.requests());
  });
});
