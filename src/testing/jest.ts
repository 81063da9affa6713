// user-group-mock/jest: useUserGroupMock() over Jest's global hooks (jest is a peer dependency of this entry point).
import {
  type RunnerHooks,
  type UserGroupMockFixture,
  type UseUserGroupMockOptions,
  useMockWith,
} from './contractFixture.js';

export type { MockHandle, UserGroupMockFixture, UseUserGroupMockOptions } from './contractFixture.js';

/**
 * Starts the mock for this test file (beforeAll; closed in afterAll), gives each test its own tenant (beforeEach),
 * and fails a test after it ran (afterEach) when a request that arrived during it broke the contract: one sent with
 * its tenant's keys, or one no tenant's key let in (no key, `Token undefined`, a wrong scheme). The message lists
 * each request with its first diagnostic, which names the fix. Call it at the top of the file.
 */
export function useUserGroupMock(options?: UseUserGroupMockOptions): UserGroupMockFixture {
  const hooks = globalThis as unknown as Partial<RunnerHooks>;
  const { beforeAll, afterAll, beforeEach, afterEach } = hooks;
  if (
    typeof beforeAll !== 'function' ||
    typeof afterAll !== 'function' ||
    typeof beforeEach !== 'function' ||
    typeof afterEach !== 'function'
  )
    throw new Error(
      "user-group-mock: useUserGroupMock() of user-group-mock/jest needs Jest's global hooks (beforeAll, afterEach, ...): call it at the top of a test file Jest runs, with injectGlobals left on; for vitest import user-group-mock/vitest",
    );
  // Jest calls a hook that declares a parameter with a done callback: the fixture's are given none.
  const bare =
    (hook: RunnerHooks['beforeEach']): RunnerHooks['beforeEach'] =>
    (fn, timeout) =>
      hook(() => fn(), timeout);
  return useMockWith(
    {
      beforeAll: bare(beforeAll),
      afterAll: bare(afterAll),
      beforeEach: bare(beforeEach),
      afterEach: bare(afterEach),
      runner: 'jest',
      // Jest runs a test.concurrent in an AsyncLocalStorage whose name its expect state reads (Jest 29.6 and later).
      inHooklessTest: () => {
        const state = (
          globalThis as { expect?: { getState?: () => { currentConcurrentTestName?: () => unknown } } }
        ).expect?.getState?.();
        return typeof state?.currentConcurrentTestName?.() === 'string';
      },
    },
    options,
  );
}
