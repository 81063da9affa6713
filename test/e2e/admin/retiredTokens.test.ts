import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/store/journal.js';
import { RetiredTokens } from '../../../src/store/retiredTokens.js';
import { service, useMocks } from '../../support/admin.js';
import { testingKey } from '../../support/http.js';

const start = useMocks();

const rotation = (old: string, id: string, status = 200): JournalRecord => ({
  method: 'POST',
  path: '/api/user',
  operationId: 'rotateUserGroupToken',
  keyEnvironment: 'Customer',
  status,
  durationMs: 1,
  rawHeaders: [],
  requestText: JSON.stringify({ current_token: old }),
  requestBody: null,
  responseText: JSON.stringify({
    success: 1,
    user_group: {
      team_id: 1,
      token: `${old}-next`,
      name: id,
      provided_id: id,
      api_environment_tag: 'Customer',
    },
  }),
  diagnostics: [],
  warnings: [],
});

describe('rotated-away tokens', () => {
  it('learns each token a rotation replaced from the journal, so the embed preview tells it from an unknown one', async () => {
    const mock = await start();
    const created = await service(mock, 'GET', { user_group_id: 't-1', name: 'T' }, testingKey);
    const old = created.body.user_group.token as string;
    await service(mock, 'POST', { current_token: old }, testingKey);
    const never = 'f'.repeat(64);
    await service(mock, 'POST', { current_token: never }, testingKey); // refused (404): nothing learned
    const preview = (token: string) => fetch(`${mock.url}/embed/d?environment=Testing&token=${token}`);
    expect((await preview(old)).status).toBe(410);
    expect((await preview(never)).status).toBe(404);
  });

  it('keeps only successful rotations', () => {
    const retired = new RetiredTokens();
    retired.recorded(rotation('a', 'g'), 1, 1000);
    retired.recorded(rotation('b', 'g', 404), 2, 2000);
    retired.recorded({ ...rotation('c', 'g'), operationId: 'updateUserGroupToken' as never }, 3, 3000);
    expect(retired.find('a')).toEqual({ environment: 'Customer', provided_id: 'g', rotatedAt: 1000 });
    expect([retired.find('b'), retired.find('c'), retired.size]).toEqual([undefined, undefined, 1]);
  });

  it('keeps the newest tokens of each group and the newest in all, forgetting the oldest first', () => {
    const retired = new RetiredTokens(5, 3);
    for (const token of ['g1', 'g2', 'g3', 'g4']) retired.recorded(rotation(token, 'g'), 1, 1);
    expect(['g1', 'g2', 'g3', 'g4'].map((t) => retired.find(t) !== undefined)).toEqual([
      false,
      true,
      true,
      true,
    ]);
    for (const token of ['h1', 'h2', 'h3']) retired.recorded(rotation(token, 'h'), 1, 1);
    expect(retired.size).toBe(5);
    expect(['g2', 'g3', 'g4', 'h1', 'h2', 'h3'].map((t) => retired.find(t) !== undefined)).toEqual([
      false,
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it("counts a group's tokens without those forgotten for the total bound, and again after a token comes back", () => {
    const retired = new RetiredTokens(3, 2);
    // The total bound forgets the oldest in all (g1, g2, then h1), each from its group's count too.
    for (const [token, group] of [
      ['g1', 'g'],
      ['g2', 'g'],
      ['h1', 'h'],
      ['h2', 'h'],
      ['g3', 'g'],
      ['g4', 'g'],
    ])
      retired.recorded(rotation(token as string, group as string), 1, 1);
    expect(['g2', 'g3', 'g4', 'h1', 'h2'].map((t) => retired.find(t) !== undefined)).toEqual([
      false,
      true,
      true,
      false,
      true,
    ]);
    // A token remembered again is one token, now its group's newest: g5 makes g's third, and g4 goes.
    retired.recorded(rotation('g3', 'g'), 1, 1);
    retired.recorded(rotation('g5', 'g'), 1, 1);
    expect(['g3', 'g4', 'g5', 'h2'].map((t) => retired.find(t) !== undefined)).toEqual([
      true,
      false,
      true,
      true,
    ]);
  });
});
