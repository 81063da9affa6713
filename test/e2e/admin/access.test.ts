import { describe, expect, it } from 'vitest';
import { createMockServer } from '../../../src/index.js';
import { admin, service, useMocks } from '../../support/admin.js';
import { call } from '../../support/http.js';

const start = useMocks();
const adminKey = 'ci-admin-secret';

describe('the admin key', () => {
  it.each(['0.0.0.0', '::', '192.0.2.10'])('is required to start listening on %s', async (host) => {
    await expect(createMockServer({ host, port: 0 })).rejects.toThrow(
      /needs the adminKey option \(--admin-key\)/,
    );
    await expect(createMockServer({ host, port: 0, adminKey: '' })).rejects.toThrow(
      /needs the adminKey option \(--admin-key\)/,
    );
  });

  it.each([
    ['without X-Admin-Key', {}, 'send it on every /__admin call'],
    ['with a wrong X-Admin-Key', { 'x-admin-key': 'ci-admin-secreT' }, 'does not match'],
    ['with a longer X-Admin-Key', { 'x-admin-key': `${adminKey}x` }, 'does not match'],
    ['with the key as Authorization instead', { authorization: `Token ${adminKey}` }, 'send it on every'],
  ])('refuses an admin call %s with 401 ADMIN_KEY_REQUIRED', async (_case, headers, hint) => {
    const mock = await start({ adminKey });
    for (const [method, path] of [
      ['GET', '/__admin/groups'],
      ['POST', '/__admin/reset'],
      ['POST', '/__admin/tenants'],
      ['GET', '/__admin/no-such-route'],
    ] as const) {
      const answer = await admin(mock.url, method, path, { headers });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.body.error.code).toBe('ADMIN_KEY_REQUIRED');
      expect(answer.body.error.details[0].path).toBe('/headers/x-admin-key');
      expect(answer.body.error.message).toContain(hint);
      expect(answer.body.error.message).not.toContain(adminKey);
    }
    expect(await mock.groups()).toEqual([]);
  });

  it('refuses two X-Admin-Key headers even when one is right', async () => {
    const mock = await start({ adminKey });
    const answer = await call(mock.url, 'GET', '/__admin/groups', {
      headers: { 'x-admin-key': [adminKey, 'other'] as unknown as string },
    });
    expect(answer.status).toBe(401);
    expect(answer.body.error.message).toContain('exactly one');
  });

  it('accepts an admin call with the right X-Admin-Key, on loopback too', async () => {
    const mock = await start({ adminKey });
    const seeded = await admin(mock.url, 'POST', '/__admin/groups', {
      adminKey,
      body: { environment: 'Customer', user_group_id: 'a', name: 'A' },
    });
    expect(seeded.status).toBe(201);
    const tenant = await admin(mock.url, 'POST', '/__admin/tenants', { adminKey });
    expect(tenant.status).toBe(201);
    const scoped = await admin(mock.url, 'GET', '/__admin/groups', {
      adminKey,
      key: tenant.body.api_keys.Customer,
    });
    expect(scoped.body).toEqual([]);
    expect((await admin(mock.url, 'GET', '/__admin/groups', { adminKey })).body).toHaveLength(1);
  });

  it('is not needed for /api/user', async () => {
    const mock = await start({ adminKey });
    expect((await service(mock, 'GET', { user_group_id: 'a', name: 'A' })).status).toBe(200);
  });

  it('is not asked for when none is set', async () => {
    const mock = await start();
    expect((await admin(mock.url, 'GET', '/__admin/groups', { adminKey: 'anything' })).status).toBe(200);
  });
});
