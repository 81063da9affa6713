import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateResponse } from '../../../src/index.js';
import { type Answer, customerKey, startMock, testingKey } from '../../support/http.js';
import { useTempDir } from '../../support/tempDir.js';

const tempDir = useTempDir();

const methodOf = { get: 'GET', put: 'PUT', post: 'POST' } as const;
let mock: Awaited<ReturnType<typeof startMock>>;
afterEach(async () => mock?.close());

/** Calls /api/user and checks the answer against the document before returning it. */
async function api(verb: keyof typeof methodOf, body: unknown, key = customerKey): Promise<Answer> {
  const answer = await mock.api(methodOf[verb], body, key);
  const checked = validateResponse({
    method: methodOf[verb],
    path: '/api/user',
    status: answer.status,
    body: answer.body,
  });
  expect(checked.diagnostics).toEqual([]);
  return answer;
}

describe('get-or-create (GET with a body)', () => {
  it('creates an unknown id with a fresh 64-hex token and properties as given', async () => {
    mock = await startMock();
    const answer = await api('get', { name: 'A', user_group_id: 'a', properties: { region: 'EU' } });
    expect(answer.body).toMatchObject({
      success: 1,
      new_user_group: true,
      user_group: { name: 'A', provided_id: 'a', properties: { region: 'EU' } },
    });
    expect(answer.body.user_group.token).toMatch(/^[0-9a-f]{64}$/);
    expect(answer.headers['x-mock-notice']).toBeUndefined();
  });

  it('answers properties null when none were given', async () => {
    mock = await startMock();
    expect((await api('get', { name: 'A', user_group_id: 'a' })).body.user_group.properties).toBeNull();
  });

  it('returns the existing group unchanged when the id is known, with a notice when the request differs', async () => {
    mock = await startMock();
    const created = await api('get', { name: 'A', user_group_id: 'a', properties: { region: 'EU' } });
    const same = await api('get', { name: 'A', user_group_id: 'a', properties: { region: 'EU' } });
    expect(same.body).toEqual({ ...created.body, new_user_group: false });
    expect(same.headers['x-mock-notice']).toBeUndefined();
    const differing = await api('get', { name: 'B', user_group_id: 'a', properties: { region: 'US' } });
    expect(differing.body).toEqual({ ...created.body, new_user_group: false });
    expect(differing.headers['x-mock-notice']).toMatch(/nothing|unchanged/);
    expect(differing.headers['x-mock-notice']).toContain('PUT');
  });

  it('treats __proto__, constructor and toString as ordinary ids', async () => {
    mock = await startMock();
    for (const id of ['__proto__', 'constructor', 'toString']) {
      expect((await api('get', { name: id, user_group_id: id })).body.new_user_group).toBe(true);
      expect((await api('get', { name: id, user_group_id: id })).body.new_user_group).toBe(false);
    }
    expect((await mock.groups()).map((g) => g.provided_id).sort()).toEqual([
      '__proto__',
      'constructor',
      'toString',
    ]);
  });

  it('gives each group a unique positive team_id', async () => {
    mock = await startMock();
    const teamIds = [];
    for (let i = 0; i < 5; i++)
      teamIds.push((await api('get', { name: 'G', user_group_id: `g${i}` })).body.user_group.team_id);
    expect(new Set(teamIds).size).toBe(5);
    expect(teamIds.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
  });
});

describe('environments come from the API key', () => {
  it('keeps one id once in each environment, as two groups', async () => {
    mock = await startMock();
    const customer = await api('get', { name: 'A', user_group_id: 'shared' }, customerKey);
    const testing = await api('get', { name: 'A', user_group_id: 'shared' }, testingKey);
    expect(testing.body.new_user_group).toBe(true);
    expect(testing.body.user_group.token).not.toBe(customer.body.user_group.token);
    expect(testing.body.user_group.team_id).not.toBe(customer.body.user_group.team_id);
    const updated = await api('put', { user_group_id: 'shared', name: 'T' }, testingKey);
    expect(updated.body.user_group.api_environment_tag).toBe('Testing');
  });

  it('lets a key see only its own environment', async () => {
    mock = await startMock();
    const customer = await api('get', { name: 'A', user_group_id: 'only-customer' }, customerKey);
    expect((await api('put', { user_group_id: 'only-customer', name: 'B' }, testingKey)).status).toBe(404);
    expect((await api('post', { current_token: customer.body.user_group.token }, testingKey)).status).toBe(
      404,
    );
    expect((await api('post', { current_token: customer.body.user_group.token }, customerKey)).status).toBe(
      200,
    );
  });
});

describe('update (PUT)', () => {
  it('replaces the fields present and keeps the absent ones and the token', async () => {
    mock = await startMock();
    const created = await api('get', {
      name: 'A',
      user_group_id: 'a',
      mapping: { '40': '213' },
      properties: { region: 'EU' },
    });
    const renamed = await api('put', { user_group_id: 'a', name: 'B' });
    expect(renamed.body.user_group).toEqual({
      ...created.body.user_group,
      name: 'B',
      api_environment_tag: 'Customer',
    });
  });

  it('replaces mapping and properties whole, never deep-merged', async () => {
    mock = await startMock();
    await api('get', {
      name: 'A',
      user_group_id: 'a',
      mapping: { '40': '213', '134': '386' },
      properties: { region: 'EU', plan: 'pro' },
    });
    const updated = await api('put', {
      user_group_id: 'a',
      properties: { plan: 'free' },
      mapping: { '40': '1' },
    });
    expect(updated.body.user_group.properties).toEqual({ plan: 'free' });
    expect((await mock.groups())[0]?.mapping).toEqual({ '40': '1' });
  });

  it('answers 404 GROUP_NOT_FOUND for an unknown id', async () => {
    mock = await startMock();
    const answer = await api('put', { user_group_id: 'nobody', name: 'B' });
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('GROUP_NOT_FOUND');
    expect(answer.body.error.message).toContain('GET /api/user');
  });
});

describe('rotate (POST)', () => {
  it('issues a new token and kills the old one at once', async () => {
    mock = await startMock();
    const created = await api('get', { name: 'A', user_group_id: 'a' });
    const old = created.body.user_group.token;
    const rotated = await api('post', { current_token: old });
    expect(rotated.body.user_group).toEqual({
      team_id: created.body.user_group.team_id,
      token: expect.stringMatching(/^[0-9a-f]{64}$/),
      name: 'A',
      provided_id: 'a',
      api_environment_tag: 'Customer',
    });
    expect(rotated.body.user_group.token).not.toBe(old);
    const reused = await api('post', { current_token: old });
    expect(reused.status).toBe(404);
    expect(reused.body.error.code).toBe('TOKEN_NOT_FOUND');
    expect((await api('post', { current_token: rotated.body.user_group.token })).status).toBe(200);
  });
});

describe('answers to repeated reads', () => {
  it('follow every change: an update, a rotation and a reset each show at the next read', async () => {
    // Reads of an unchanged group share one answer; each change must end that sharing at once.
    mock = await startMock();
    const read = async () => (await api('get', { name: 'A', user_group_id: 'a' })).body;
    const created = (await read()).user_group;
    expect((await read()).user_group).toEqual(created);
    await api('put', { user_group_id: 'a', properties: { plan: 'pro' } });
    const updated = (await read()).user_group;
    expect(updated).toEqual({ ...created, properties: { plan: 'pro' } });
    const rotated = (await api('post', { current_token: created.token })).body.user_group;
    expect((await read()).user_group).toEqual({ ...updated, token: rotated.token });
    await mock.reset();
    const recreated = await read();
    expect(recreated.new_user_group).toBe(true);
    expect(recreated.user_group.token).not.toBe(rotated.token);
    expect((await read()).user_group).toEqual(recreated.user_group);
  });
});

describe('concurrency', () => {
  it('creates one group for 50 concurrent get-or-creates of one new id', async () => {
    mock = await startMock();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => api('get', { name: 'A', user_group_id: 'race' })),
    );
    expect(answers.filter((a) => a.body.new_user_group === true)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.user_group.token)).size).toBe(1);
    expect(await mock.groups()).toHaveLength(1);
  });

  it('lets exactly one of two concurrent rotations with one token succeed', async () => {
    mock = await startMock();
    const token = (await api('get', { name: 'A', user_group_id: 'a' })).body.user_group.token;
    const answers = await Promise.all([
      api('post', { current_token: token }),
      api('post', { current_token: token }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
  });
});

describe('--seed', () => {
  it('makes tokens and team_ids the same on every run', async () => {
    const tokens = [];
    for (let run = 0; run < 2; run++) {
      mock = await startMock({ seed: 7 });
      tokens.push((await api('get', { name: 'A', user_group_id: 'a' })).body.user_group);
      await mock.close();
    }
    expect(tokens[0]).toEqual(tokens[1]);
    mock = await startMock({ seed: 8 });
    expect((await api('get', { name: 'A', user_group_id: 'a' })).body.user_group.token).not.toBe(
      tokens[0]?.token,
    );
  });

  it('draws no value again on a restart over its own database: tokens, tenant ids and keys stay unique', async () => {
    const db = join(tempDir(), 'db.json');
    const run = async (id: string) => {
      mock = await startMock({ seed: 7, db });
      const token = (await api('get', { name: id, user_group_id: id })).body.user_group.token as string;
      const tenant = await mock.createTenant();
      await mock.close();
      return { token, tenant };
    };
    const first = await run('g1');
    const second = await run('g2');
    expect(second.token).not.toBe(first.token);
    expect(second.tenant.id).not.toBe(first.tenant.id);
    expect(second.tenant.api_keys.Customer).not.toBe(first.tenant.api_keys.Customer);
    mock = await startMock({ seed: 7, db });
    expect(new Set((await mock.groups()).map((group) => group.token)).size).toBe(2);
  });
});
