import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import {
  type RunnerHooks,
  type UseUserGroupMockOptions,
  useMockWith,
} from '../../../src/testing/contractFixture.js';

/** The fixture over hooks this test calls itself, in the order a runner would, around one test body. */
function fixtureAround(options: UseUserGroupMockOptions = {}) {
  const hooks: Record<keyof RunnerHooks, (() => Promise<void>)[]> = {
    beforeAll: [],
    afterAll: [],
    beforeEach: [],
    afterEach: [],
  };
  const register = (name: keyof RunnerHooks) => (fn: () => Promise<void>) => void hooks[name].push(fn);
  const fixture = useMockWith(
    {
      beforeAll: register('beforeAll'),
      afterAll: register('afterAll'),
      beforeEach: register('beforeEach'),
      afterEach: register('afterEach'),
    },
    options,
  );
  const all = async (name: keyof RunnerHooks) => {
    for (const fn of hooks[name]) await fn();
  };
  /** Runs one test body between the hooks; resolves with what afterEach threw, or undefined. */
  const test = async (body: () => Promise<void>): Promise<Error | undefined> => {
    await all('beforeEach');
    await body();
    return all('afterEach').then(
      () => undefined,
      (error: Error) => error,
    );
  };
  return { fixture, test, start: () => all('beforeAll'), stop: () => all('afterAll') };
}

async function getOrCreate(url: string, authorization: string | undefined, body: unknown): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
  const answer = await request(`${url}/api/user`, { method: 'GET', headers, body: JSON.stringify(body) });
  await answer.body.dump();
  return answer.statusCode;
}

describe('useUserGroupMock()', () => {
  it('fails a test whose request had no key, naming the fix, though its tenant’s journal is empty', async () => {
    const { fixture, test, start, stop } = fixtureAround();
    await start();
    try {
      let tenantJournal: unknown[] = [];
      const failure = await test(async () => {
        expect(await getOrCreate(fixture.url, undefined, { name: 'A', user_group_id: 'a' })).toBe(401);
        tenantJournal = await fixture.tenant.requests({ invalid: true });
      });
      // What the README's check of 0.2 looked at alone: it stayed green.
      expect(tenantJournal).toEqual([]);
      expect(failure?.message).toMatch(
        /^user-group-mock: 1 request sent during this test broke the contract:\n {2}- Authorization header is missing; send "Authorization: Token <API_KEY>" \(at \/headers\/authorization\): GET \/api\/user answered 401 AUTH_MISSING, with no tenant's key/,
      );
    } finally {
      await stop();
    }
  });

  it('fails a test for its own tenant’s mistakes only, each listed, and passes the next test that keeps the contract', async () => {
    const { fixture, test, start, stop } = fixtureAround();
    await start();
    try {
      const broken = await test(async () => {
        const key = fixture.tenant.keys.Customer;
        await getOrCreate(fixture.url, `Bearer ${key}`, { name: 'A', user_group_id: 'a' });
        await getOrCreate(fixture.url, `Token ${key}`, { name: 'A', userGroupId: 'a' });
      });
      expect(broken?.message.split('\n').slice(0, 3)).toEqual([
        'user-group-mock: 2 requests sent during this test broke the contract:',
        '  - Authorization uses the Token scheme, not Bearer: send "Authorization: Token <API_KEY>" (at /headers/authorization): GET /api/user answered 401 AUTH_BEARER',
        '  - body has unknown field "userGroupId"; did you mean "user_group_id"? (at /body/userGroupId) (+1 more): GET /api/user answered 400 VALIDATION_FAILED',
      ]);
      const kept = await test(async () => {
        expect(
          await getOrCreate(fixture.url, `Token ${fixture.tenant.keys.Customer}`, {
            name: 'A',
            user_group_id: 'a',
          }),
        ).toBe(200);
      });
      expect(kept).toBeUndefined();
    } finally {
      await stop();
    }
  });

  it("only warns with onContractBreak: 'warn', and checks nothing with 'off'", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      for (const onContractBreak of ['warn', 'off'] as const) {
        const { fixture, test, start, stop } = fixtureAround({ onContractBreak });
        await start();
        try {
          const failure = await test(async () => {
            await getOrCreate(fixture.url, undefined, { name: 'A', user_group_id: 'a' });
          });
          expect(failure).toBeUndefined();
        } finally {
          await stop();
        }
      }
      expect(warn.mock.calls.map(([message]) => String(message).split('\n')[0])).toEqual([
        'user-group-mock: 1 request sent during this test broke the contract:',
      ]);
      // It says how to make it fail, not how to make it warn.
      expect(String(warn.mock.calls[0]?.[0])).toMatch(
        /onContractBreak: 'fail' \(the default\) to fail the test, or 'off' not to check\.$/,
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('gives each test a tenant of its own, removed after it', async () => {
    const { fixture, test, start, stop } = fixtureAround();
    await start();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) await test(async () => void ids.push(fixture.tenant.id));
      expect(new Set(ids).size).toBe(2);
      expect((await fixture.mock.tenants()).map((tenant) => tenant.id)).toEqual(['default']);
      expect(() => fixture.tenant).toThrow(/made for each test \(beforeEach\)/);
    } finally {
      await stop();
    }
  });

  it('refuses an onContractBreak it does not know', () => {
    expect(() => fixtureAround({ onContractBreak: 'error' as 'fail' })).toThrow(
      `useUserGroupMock({ onContractBreak }): "error" is none of 'fail', 'warn', 'off'`,
    );
  });
});
