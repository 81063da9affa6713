import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { admin, hex64, service, useMocks } from '../../support/admin.js';
import { FaultyFileSystem } from '../../support/faultyFiles.js';
import { testingKey } from '../../support/http.js';
import { useTempDir } from '../../support/tempDir.js';

const start = useMocks();
const tempDir = useTempDir();

describe('POST /__admin/groups (seed)', () => {
  it('stores the group as given, keeping a given token, and answers 201 with it', async () => {
    const mock = await start();
    const seed = {
      environment: 'Customer',
      user_group_id: 'customer-a',
      name: 'Customer A',
      token: hex64('a'),
      team_id: 7,
      mapping: { '40': '213' },
      properties: { region: 'EU' },
    };
    const seeded = await admin(mock.url, 'POST', '/__admin/groups', { body: seed });
    expect(seeded.status).toBe(201);
    expect(seeded.body).toEqual({
      environment: 'Customer',
      team_id: 7,
      token: hex64('a'),
      name: 'Customer A',
      provided_id: 'customer-a',
      mapping: { '40': '213' },
      properties: { region: 'EU' },
    });
    const got = await service(mock, 'GET', { user_group_id: 'customer-a', name: 'Customer A' });
    expect(got.body).toMatchObject({ new_user_group: false, user_group: { token: hex64('a'), team_id: 7 } });
  });

  it('makes a fresh token when none is given', async () => {
    const mock = await start();
    const seeded = await admin(mock.url, 'POST', '/__admin/groups', {
      body: { environment: 'Testing', user_group_id: 'b', name: 'B' },
    });
    expect(seeded.status).toBe(201);
    expect(seeded.body.token).toMatch(/^[0-9a-f]{64}$/);
    expect(seeded.body).toMatchObject({ mapping: null, properties: null, environment: 'Testing' });
  });

  it('lets a seeded known token be rotated through the service, after which it is gone', async () => {
    const mock = await start();
    await admin(mock.url, 'POST', '/__admin/groups', {
      body: { environment: 'Customer', user_group_id: 'a', name: 'A', token: hex64('b') },
    });
    const rotated = await service(mock, 'POST', { current_token: hex64('b') });
    expect(rotated.status).toBe(200);
    expect(rotated.body.user_group.token).not.toBe(hex64('b'));
    expect((await service(mock, 'POST', { current_token: hex64('b') })).status).toBe(404);
  });

  it.each([
    ['the same id in the same environment', { user_group_id: 'a', token: hex64('d') }, '/body/user_group_id'],
    ['a token another group holds', { user_group_id: 'other', token: hex64('c') }, '/body/token'],
  ])('answers 409 GROUP_EXISTS for %s', async (_case, clash, path) => {
    const mock = await start();
    const base = { environment: 'Customer', name: 'A' };
    await admin(mock.url, 'POST', '/__admin/groups', {
      body: { ...base, user_group_id: 'a', token: hex64('c') },
    });
    const again = await admin(mock.url, 'POST', '/__admin/groups', { body: { ...base, ...clash } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('GROUP_EXISTS');
    expect(again.body.error.details[0].path).toBe(path);
  });

  it('accepts the same id once in each environment', async () => {
    const mock = await start();
    for (const environment of ['Customer', 'Testing']) {
      const seeded = await admin(mock.url, 'POST', '/__admin/groups', {
        body: { environment, user_group_id: 'same', name: 'Same' },
      });
      expect(seeded.status).toBe(201);
    }
    expect((await admin(mock.url, 'GET', '/__admin/groups')).body).toHaveLength(2);
  });

  it('answers 500 INTERNAL_ERROR and keeps nothing when the seed cannot be written', async () => {
    const files = new FaultyFileSystem();
    const mock = await start({ db: join(tempDir(), 'db.json'), files });
    files.fail('log-sync', { code: 'ENOSPC' });
    const failed = await admin(mock.url, 'POST', '/__admin/groups', {
      body: { environment: 'Customer', user_group_id: 'a', name: 'A' },
    });
    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(failed.body.error.message).toMatch(/ENOSPC.*Retry the request/);
    expect(await mock.groups()).toEqual([]);
    const retried = await admin(mock.url, 'POST', '/__admin/groups', {
      body: { environment: 'Customer', user_group_id: 'a', name: 'A' },
    });
    expect(retried.status).toBe(201);
  });

  it('refuses an invalid seed in-process too, with the same diagnostics as over HTTP', async () => {
    const mock = await start();
    const seeded = mock.seedGroup({
      environment: 'Customer',
      user_group_id: 'a',
      name: 'A',
      token: 'dev-customer-key',
    });
    await expect(seeded).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/token' }] });
    expect(await mock.groups()).toEqual([]);
  });
});

describe('GET /__admin/groups', () => {
  it('lists the groups of the scope, filtered by environment when asked', async () => {
    const mock = await start();
    await service(mock, 'GET', { user_group_id: 'c1', name: 'C1' });
    await service(mock, 'GET', { user_group_id: 't1', name: 'T1' }, testingKey);
    const all = await admin(mock.url, 'GET', '/__admin/groups');
    expect(all.body.map((g: { provided_id: string }) => g.provided_id).sort()).toEqual(['c1', 't1']);
    const testing = await admin(mock.url, 'GET', '/__admin/groups?environment=Testing');
    expect(testing.body.map((g: { provided_id: string }) => g.provided_id)).toEqual(['t1']);
  });
});

describe('POST /__admin/reset', () => {
  it('empties the groups, journal and faults of the scope and answers 204', async () => {
    const mock = await start();
    await service(mock, 'GET', { user_group_id: 'a', name: 'A' });
    await admin(mock.url, 'POST', '/__admin/faults', {
      body: { status: 503, operationId: 'updateUserGroup' },
    });
    expect(await mock.groups()).toHaveLength(1);
    expect(await mock.requests()).toHaveLength(1);

    const reset = await admin(mock.url, 'POST', '/__admin/reset');
    expect(reset.status).toBe(204);
    expect((await admin(mock.url, 'GET', '/__admin/groups')).body).toEqual([]);
    expect((await admin(mock.url, 'GET', '/__admin/requests')).body).toEqual([]);
    expect((await admin(mock.url, 'GET', '/__admin/faults')).body).toEqual([]);
    const again = await service(mock, 'GET', { user_group_id: 'a', name: 'A' });
    expect(again.body.new_user_group).toBe(true);
  });
});

describe('GET /__admin/tokens/{token}', () => {
  it('names the group a token identifies, and answers 404 once the token is rotated away', async () => {
    const mock = await start();
    const created = await service(mock, 'GET', {
      user_group_id: 'customer-a',
      name: 'Customer A',
      properties: { plan: 'pro' },
    });
    const token = created.body.user_group.token as string;

    const before = await admin(mock.url, 'GET', `/__admin/tokens/${token}`);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      environment: 'Customer',
      provided_id: 'customer-a',
      name: 'Customer A',
      team_id: created.body.user_group.team_id,
      properties: { plan: 'pro' },
    });

    const rotated = await service(mock, 'POST', { current_token: token });
    const after = await admin(mock.url, 'GET', `/__admin/tokens/${token}`);
    expect(after.status).toBe(404);
    expect(after.body.error.code).toBe('TOKEN_NOT_FOUND');
    const fresh = await admin(mock.url, 'GET', `/__admin/tokens/${rotated.body.user_group.token}`);
    expect(fresh.body.provided_id).toBe('customer-a');
  });

  it('answers 400 naming the mistake when an API key is checked instead of a group token', async () => {
    const mock = await start();
    const answer = await admin(mock.url, 'GET', '/__admin/tokens/dev-customer-key');
    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual([
      expect.objectContaining({ code: 'INVALID_FORMAT', path: '/path/token' }),
    ]);
    expect(answer.body.error.message).toContain('not the API key');
  });
});
