import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { connectMock, createMockServer } from '../../../src/index.js';
import {
  type RunnerHooks,
  type UseUserGroupMockOptions,
  useMockWith,
} from '../../../src/testing/contractFixture.js';

/** The fixture over hooks this test calls itself, in the order a runner would, around one test body. */
function fixtureAround(
  options: UseUserGroupMockOptions = {},
  runner: Pick<RunnerHooks, 'runner' | 'inHooklessTest'> = {},
) {
  type Fn = (context?: unknown) => Promise<void>;
  type Name = Exclude<keyof RunnerHooks, 'runner' | 'inHooklessTest'>;
  const hooks: Record<Name, Fn[]> = {
    beforeAll: [],
    afterAll: [],
    beforeEach: [],
    afterEach: [],
  };
  const register = (name: Name) => (fn: Fn) => void hooks[name].push(fn);
  const fixture = useMockWith(
    {
      beforeAll: register('beforeAll'),
      afterAll: register('afterAll'),
      beforeEach: register('beforeEach'),
      afterEach: register('afterEach'),
      ...runner,
    },
    options,
  );
  const all = async (name: Name, context?: object) => {
    for (const fn of hooks[name]) await fn(context);
  };
  /**
   * Runs one test body between the hooks; resolves with what afterEach threw, or undefined. With a context, as
   * vitest runs a test: each hook and the body are given it, so that several such tests can run at once.
   */
  const test = async (
    body: (context: object) => Promise<void>,
    context?: object,
  ): Promise<Error | undefined> => {
    await all('beforeEach', context);
    await body(context ?? {});
    return all('afterEach', context).then(
      () => undefined,
      (error: Error) => error,
    );
  };
  return { fixture, test, start: () => all('beforeAll'), stop: () => all('afterAll') };
}

/** A meeting of `count` test bodies: each awaits `meet()`, which resolves once all have come (all have begun). */
function meeting(count: number): () => Promise<void> {
  let arrive: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    let waiting = count;
    arrive = () => void (--waiting === 0 && resolve());
  });
  return () => {
    arrive();
    return all;
  };
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

  it('fails the file, at its end, for a request that broke the contract outside its tests (beforeAll, between tests, afterAll)', async () => {
    const { fixture, test, start, stop } = fixtureAround();
    await start();
    const { url } = fixture;
    const unchecked = { name: 'A', userGroupId: 'a' };
    let stopped: Error | undefined;
    try {
      expect(await getOrCreate(fixture.url, undefined, unchecked)).toBe(401); // as from a beforeAll
      expect(await test(async () => undefined)).toBeUndefined();
      expect(await getOrCreate(fixture.url, 'Token dev-customer-key', unchecked)).toBe(400); // as from an afterAll
    } finally {
      stopped = await stop().then(
        () => undefined,
        (error: Error) => error,
      );
    }
    expect(stopped?.message.split('\n').slice(0, 3)).toEqual([
      'user-group-mock: 2 requests sent outside the tests of this file (in beforeAll or afterAll, between tests, or by a promise a test left running) broke the contract:',
      '  - Authorization header is missing; send "Authorization: Token <API_KEY>" (at /headers/authorization): GET /api/user answered 401 AUTH_MISSING',
      '  - body has unknown field "userGroupId"; did you mean "user_group_id"? (at /body/userGroupId) (+1 more): GET /api/user answered 400 VALIDATION_FAILED',
    ]);
    // The mock is closed all the same.
    await expect(getOrCreate(url, undefined, unchecked)).rejects.toThrow();
  });

  it('says what the default tenant’s journal dropped past journalLimit, in a test and outside the tests', async () => {
    const { fixture, test, start, stop } = fixtureAround({ server: { journalLimit: 5 } });
    await start();
    const good = { name: 'A', user_group_id: 'a' };
    let stopped: Error | undefined;
    try {
      const failure = await test(async () => {
        for (let i = 0; i < 7; i++) await getOrCreate(fixture.url, undefined, good);
      });
      expect(failure?.message.split('\n')[0]).toBe(
        'user-group-mock: 5 requests sent during this test broke the contract:',
      );
      expect(failure?.message).toContain(
        "(and the default tenant's journal, which holds the requests with no tenant's key, dropped 2 entries past journalLimit while this test ran, unchecked;",
      );
      // As from a beforeAll of the next file section: a break, then enough requests to push it out.
      await getOrCreate(fixture.url, undefined, good);
      for (let i = 0; i < 5; i++) await getOrCreate(fixture.url, 'Token dev-customer-key', good);
    } finally {
      stopped = await stop().then(
        () => undefined,
        (error: Error) => error,
      );
    }
    expect(stopped?.message).toMatch(
      /^user-group-mock: the default tenant's journal, which holds the requests with no tenant's key, dropped 6 entries past journalLimit while this file ran, so some requests went unchecked; keep more/,
    );
  });

  it('names a request an earlier test left running, landing in the next test with its removed tenant’s key', async () => {
    const { fixture, test, start, stop } = fixtureAround();
    await start();
    try {
      let key = '';
      expect(
        await test(async () => {
          key = fixture.tenant.keys.Customer;
        }),
      ).toBeUndefined();
      const failure = await test(async () => {
        expect(await getOrCreate(fixture.url, `Token ${key}`, { name: 'A', user_group_id: 'a' })).toBe(401);
      });
      expect(failure?.message.split('\n')[1]).toMatch(
        /^ {2}- the API key in Authorization is a key of tenant (t-\w+), which has been removed .*: GET \/api\/user answered 401 AUTH_UNKNOWN_KEY, with the key of tenant \1, removed after its test ended: a request that test left running, landing in this one; await every request before a test ends$/,
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
      expect(() => fixture.tenant).toThrow(/made for each test \(beforeEach\) and removed after it/);
    } finally {
      await stop();
    }
  });

  it('gives tests that run at once (vitest it.concurrent) each its own tenant through its context, and fails only the one that broke the contract', async () => {
    const { fixture, test, start, stop } = fixtureAround();
    await start();
    try {
      const meet = meeting(2);
      const seen: string[] = [];
      const [kept, broke] = await Promise.all([
        test(async (context) => {
          await meet();
          expect(() => fixture.tenant).toThrow(
            "tests of this file run at once (it.concurrent or describe.concurrent), so fixture.tenant cannot tell which test asks; take the test's own with its context",
          );
          const tenant = fixture.tenantOf(context);
          seen.push(tenant.id);
          // The slower of the two: it ends after the other broke the contract.
          await new Promise((resolve) => setTimeout(resolve, 50));
          expect(
            await getOrCreate(fixture.url, `Token ${tenant.keys.Customer}`, {
              name: 'A',
              user_group_id: 'a',
            }),
          ).toBe(200);
        }, {}),
        test(async (context) => {
          await meet();
          const tenant = fixture.tenantOf(context);
          seen.push(tenant.id);
          expect(
            await getOrCreate(fixture.url, `Token ${tenant.keys.Customer}`, { name: 'B', userGroupId: 'b' }),
          ).toBe(400);
        }, {}),
      ]);
      expect(new Set(seen).size).toBe(2);
      expect(kept).toBeUndefined();
      expect(broke?.message).toContain('body has unknown field "userGroupId"; did you mean "user_group_id"?');
      expect((await fixture.mock.tenants()).map((tenant) => tenant.id)).toEqual(['default']);
      expect(() => fixture.tenantOf({})).toThrow(
        'fixture.tenantOf(context) knows no running test of that context',
      );
      expect(() => fixture.tenant).toThrow('no test of this file holds a tenant now');
    } finally {
      await stop();
    }
  });

  it('blames a request no tenant’s key let in on each test that ran beside it, saying it may be the other’s', async () => {
    const { fixture, test, start, stop } = fixtureAround();
    await start();
    try {
      // Both tests have begun (each took its mark of the journal) before the keyless request is sent.
      const meet = meeting(2);
      let release: () => void = () => undefined;
      const sent = new Promise<void>((resolve) => {
        release = resolve;
      });
      const [quiet, keyless] = await Promise.all([
        test(async () => {
          await meet();
          await sent;
        }, {}),
        test(async () => {
          await meet();
          expect(await getOrCreate(fixture.url, undefined, { name: 'A', user_group_id: 'a' })).toBe(401);
          release();
        }, {}),
      ]);
      for (const failed of [quiet, keyless])
        expect(failed?.message).toContain(
          "with no tenant's key (sent by this test or one running beside it): check that the client sends the test's key",
        );
    } finally {
      await stop();
    }
  });

  it('says a request no tenant’s key let in may be another client’s, on a mock connected to rather than started', async () => {
    const shared = await createMockServer();
    const { fixture, test, start, stop } = fixtureAround({ start: () => connectMock({ url: shared.url }) });
    await start();
    try {
      // Another client of the shared mock (another file, another pipeline) sends a request without a key.
      const failed = await test(async () => {
        expect(await getOrCreate(shared.url, undefined, { name: 'A', user_group_id: 'a' })).toBe(401);
      });
      expect(failed?.message).toContain(
        "with no tenant's key (sent by this test, or by another client of the mock, which runs outside this process: other test files or pipelines that share it land in the same journal): check that the client sends the test's key",
      );
      expect(failed?.message).toContain(
        "clear it once seen, tenant.clearRequests() (mock.clearRequests() for one no tenant's key let in)",
      );
      expect(fixture.url).toBe(shared.url);
    } finally {
      await stop();
      await shared.close();
    }
  });

  it('fails a test whose tenant’s journal dropped entries, saying how to keep more', async () => {
    const { fixture, test, start, stop } = fixtureAround({ server: { journalLimit: 1 } });
    await start();
    try {
      const failed = await test(async () => {
        const key = `Token ${fixture.tenant.keys.Customer}`;
        for (const id of ['a', 'b', 'c'])
          expect(await getOrCreate(fixture.url, key, { name: id, user_group_id: id })).toBe(200);
      });
      expect(failed?.message).toBe(
        "user-group-mock: the journal of this test's tenant dropped 2 entries past journalLimit, so some requests went unchecked; keep more with useUserGroupMock({ server: { journalLimit: N } }) (default 1,000; --journal-limit N for a mock run as a process)",
      );
    } finally {
      await stop();
    }
  });

  it('refuses fixture.tenant in a test vitest runs concurrently even while it runs alone, so the refusal does not depend on timing', async () => {
    const { fixture, test, start, stop } = fixtureAround();
    await start();
    try {
      const failed = await test(
        async (context) => {
          expect(() => fixture.tenant).toThrow(
            'tests of this file run at once (it.concurrent or describe.concurrent)',
          );
          expect(fixture.tenantOf(context).id).toMatch(/^t-/);
        },
        { task: { concurrent: true } },
      );
      expect(failed).toBeUndefined();
    } finally {
      await stop();
    }
  });

  it('refuses, under Jest, fixture.tenant to a test.concurrent even while a test() holds a tenant, and tenantOf', async () => {
    let hookless = false;
    const { fixture, test, start, stop } = fixtureAround(
      {},
      { runner: 'jest', inHooklessTest: () => hookless },
    );
    await start();
    try {
      const failed = await test(async () => {
        expect(fixture.tenant.id).toMatch(/^t-/);
        hookless = true; // as if read from a test.concurrent running meanwhile
        expect(() => fixture.tenant).toThrow(
          'Jest runs no beforeEach or afterEach for a test.concurrent, so such a test gets no tenant and is not checked: write it with test()',
        );
        hookless = false;
        expect(() => fixture.tenantOf(undefined as never)).toThrow(
          "fixture.tenantOf(context) is for vitest's concurrent tests; under Jest read fixture.tenant in a test()",
        );
      });
      expect(failed).toBeUndefined();
    } finally {
      await stop();
    }
  });

  it('refuses an option it does not take, sending a mock option to server', () => {
    expect(() => fixtureAround({ journalLimit: 5 } as UseUserGroupMockOptions)).toThrow(
      'useUserGroupMock({ journalLimit }): journalLimit is an option of the mock, given inside server: useUserGroupMock({ server: { journalLimit: … } })',
    );
    expect(() => fixtureAround({ onContractBrake: 'warn' } as UseUserGroupMockOptions)).toThrow(
      'useUserGroupMock({ onContractBrake }): there is no option "onContractBrake"; did you mean "onContractBreak"?',
    );
  });

  it('refuses an onContractBreak it does not know', () => {
    expect(() => fixtureAround({ onContractBreak: 'error' as 'fail' })).toThrow(
      `useUserGroupMock({ onContractBreak }): "error" is none of 'fail', 'warn', 'off'`,
    );
  });
});
