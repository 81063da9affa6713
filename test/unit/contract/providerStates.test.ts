import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { contractStateHandlers, providerStates } from '../../../src/contract/providerStates.js';
import { createMockServer } from '../../../src/mockServer.js';

/** A provider's admin API that answers `answers[method path]` (default 404) and notes each call. */
async function fakeProvider(answers: Record<string, number>): Promise<{ url: string; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    const call = `${req.method} ${req.url}`;
    calls.push(call);
    req.resume();
    req.on('end', () => res.writeHead(answers[call] ?? 404).end());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

describe('contractStateHandlers', () => {
  it('removes the groups with DELETE /__admin/groups, leaving the journal and the faults', async () => {
    const mock = await createMockServer();
    try {
      await mock.seedGroup({ environment: 'Testing', user_group_id: 'old', name: 'Old' });
      await fetch(`${mock.url}/api/user`, { method: 'PUT' });
      await mock.injectFault({ status: 503 });
      await contractStateHandlers(mock.url)[providerStates.noGroups]?.();
      expect(await mock.groups()).toEqual([]);
      expect(await mock.requests()).toHaveLength(1);
      expect(await mock.faults()).toHaveLength(1);
    } finally {
      await mock.close();
    }
  });

  it.each([404, 405])(
    'resets the scope instead on a provider that answers %i to DELETE /__admin/groups, and asks only once',
    async (status) => {
      const provider = await fakeProvider({
        'DELETE /__admin/groups': status,
        'POST /__admin/reset': 204,
        'POST /__admin/groups': 201,
      });
      const handlers = contractStateHandlers(provider.url);
      await handlers[providerStates.noGroups]?.();
      const seed = { environment: 'Customer', user_group_id: 'a', name: 'A', token: 'f'.repeat(64) };
      await expect(handlers[providerStates.groupExists]?.(seed)).resolves.toEqual({ token: seed.token });
      expect(provider.calls).toEqual([
        'DELETE /__admin/groups',
        'POST /__admin/reset',
        'POST /__admin/reset',
        'POST /__admin/groups',
      ]);
    },
  );

  it('names the DELETE that failed, with its status, when the provider refuses it', async () => {
    const provider = await fakeProvider({ 'DELETE /__admin/groups': 401 });
    await expect(contractStateHandlers(provider.url)[providerStates.noGroups]?.()).rejects.toMatchObject({
      message: expect.stringContaining(`DELETE ${provider.url}/__admin/groups answered 401`),
      method: 'DELETE',
      status: 401,
    });
    expect(provider.calls).toEqual(['DELETE /__admin/groups']);
  });
});
