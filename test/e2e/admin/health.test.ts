import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { admin, useMocks } from '../../support/admin.js';
import { call } from '../../support/http.js';
import { useTempDir } from '../../support/tempDir.js';

const start = useMocks();
const tempDir = useTempDir();
const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('GET /__admin/health', () => {
  it('says ready, with the package version and a memory store, for an in-memory mock', async () => {
    const mock = await start();
    const answer = await admin(mock.url, 'GET', '/__admin/health');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ready', version, store: 'memory' });
    expect(await mock.health()).toEqual(answer.body);
  });

  it('says the store is a file for a mock with a database (--db)', async () => {
    const mock = await start({ db: join(tempDir(), 'db.json') });
    const answer = await admin(mock.url, 'GET', '/__admin/health');
    expect(answer.body).toEqual({ status: 'ready', version, store: 'file' });
  });

  it('needs the admin key when the mock has one, and reads no Authorization', async () => {
    const adminKey = 'ci-admin-secret';
    const mock = await start({ adminKey });
    const refused = await admin(mock.url, 'GET', '/__admin/health');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('ADMIN_KEY_REQUIRED');
    const answer = await admin(mock.url, 'GET', '/__admin/health', {
      adminKey,
      key: 'not-a-key-of-this-mock',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.store).toBe('memory');
  });

  it('answers a curl-like request without any header but Host', async () => {
    const mock = await start();
    const answer = await call(mock.url, 'GET', '/__admin/health', { headers: {} });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('the keyless probes GET /__admin/health/live and /__admin/health/ready', () => {
  it.each([
    ['/__admin/health/live', { status: 'live' }],
    ['/__admin/health/ready', { status: 'ready' }],
  ])(
    '%s answers 200 and a status word alone, without the admin key of a mock that has one',
    async (path, body) => {
      const mock = await start({ adminKey: 'ci-admin-secret', db: join(tempDir(), 'db.json') });
      const answer = await admin(mock.url, 'GET', path, { key: 'not-a-key-of-this-mock' });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(body);
    },
  );

  it('keeps the full health behind the admin key while the probes answer', async () => {
    const mock = await start({ adminKey: 'ci-admin-secret' });
    expect((await admin(mock.url, 'GET', '/__admin/health')).status).toBe(401);
    expect((await admin(mock.url, 'GET', '/__admin/health/live')).status).toBe(200);
  });
});
