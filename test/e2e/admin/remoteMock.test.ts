import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectMock,
  createMockServer,
  MockControlError,
  type MockServer,
  type RemoteMock,
} from '../../../src/index.js';
import { call, jsonHeaders } from '../../support/http.js';

describe('connectMock(): the controls of a mock elsewhere, over /__admin', () => {
  let server: MockServer;
  let remote: RemoteMock;
  beforeAll(async () => {
    server = await createMockServer({ adminKey: 'remote-admin-key' });
    remote = await connectMock({ url: server.url, adminKey: 'remote-admin-key' });
  });
  afterAll(() => server.close());

  it('acts on a tenant it made as the in-process controls do, without its id', async () => {
    const tenant = await remote.createTenant();
    const group = await tenant.seedGroup({ environment: 'Testing', user_group_id: 'seeded', name: 'Seeded' });
    expect(await server.groups(tenant.id)).toEqual([group]);
    expect((await tenant.token(group.token))?.provided_id).toBe('seeded');
    expect(await tenant.token('f'.repeat(64))).toBeUndefined();
    const fault = await tenant.injectFault({ operationId: 'updateUserGroup', status: 503 });
    expect(await server.faults(tenant.id)).toEqual([fault]);
    await call(server.url, 'GET', '/api/user', {
      body: { name: 'A', userGroupId: 'a' },
      headers: jsonHeaders(tenant.keys.Customer),
    });
    const invalid = await tenant.requests({ invalid: true });
    expect(invalid).toEqual(await server.requests({ invalid: true }, tenant.id));
    expect(invalid.map((entry) => entry.status)).toEqual([400]);
    expect(await tenant.droppedRequests()).toBe(0);
    await tenant.reset();
    expect([await tenant.groups(), await tenant.faults(), await tenant.requests()]).toEqual([[], [], []]);
    await tenant.delete();
    expect((await server.tenants()).map((t) => t.id)).toEqual(['default']);
  });

  it('rejects a misuse with the same MockControlError as in process', async () => {
    const tenant = await remote.createTenant();
    const misspelt = { operationId: 'updateUserGoup' as 'updateUserGroup', status: 503 };
    const [there, here] = await Promise.all(
      [tenant.injectFault(misspelt), server.injectFault(misspelt, tenant.id)].map((p) =>
        p.then(
          () => undefined,
          (error: MockControlError) => error,
        ),
      ),
    );
    expect(there).toBeInstanceOf(MockControlError);
    expect(there?.message).toContain('did you mean "updateUserGroup"?');
    expect(here?.message).toContain('did you mean "updateUserGroup"?');
    expect([there?.code, there?.control]).toEqual([here?.code, here?.control]);
    const seed = { environment: 'Customer', user_group_id: 'twice', name: 'Twice' } as const;
    await tenant.seedGroup(seed);
    await expect(tenant.seedGroup(seed)).rejects.toMatchObject({
      code: 'GROUP_EXISTS',
      control: 'seedGroup',
    });
    await expect(remote.requests({ invalid: true }, `${tenant.id}x`)).rejects.toThrow(
      `requests: no tenant "${tenant.id}x"`,
    );
    await expect(tenant.requests({ limit: 0 })).rejects.toThrow(/limit must be >= 1/);
    await expect(remote.deleteTenant('default')).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
  });

  it('finds a tenant made elsewhere by its id, and removes only the tenants it made on close()', async () => {
    const elsewhere = await server.createTenant();
    const other = await connectMock({ url: server.url, adminKey: 'remote-admin-key' });
    await other.createTenant();
    expect(await other.groups(elsewhere.id)).toEqual([]);
    await other.close();
    expect((await server.tenants()).map((t) => t.id)).toContain(elsewhere.id);
    expect((await server.tenants()).length).toBe((await remote.tenants()).length);
  });

  it('refuses to connect with a wrong admin key, naming the code', async () => {
    await expect(connectMock({ url: server.url, adminKey: 'wrong' })).rejects.toMatchObject({
      code: 'ADMIN_KEY_REQUIRED',
      control: 'health',
    });
  });
});
