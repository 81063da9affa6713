// user-group-mock/vitest: useUserGroupMock() over vitest's hooks (vitest is a peer dependency of this entry point).
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type UserGroupMockFixture, type UseUserGroupMockOptions, useMockWith } from './contractFixture.js';

export type { MockHandle, UserGroupMockFixture, UseUserGroupMockOptions } from './contractFixture.js';

/**
 * Starts the mock for this test file (beforeAll; closed in afterAll), gives each test its own tenant (beforeEach),
 * and fails a test after it ran (afterEach) when a request that arrived during it broke the contract: one sent with
 * its tenant's keys, or one no tenant's key let in (no key, `Token undefined`, a wrong scheme). The message lists
 * each request with its first diagnostic, which names the fix. Call it at the top of the file.
 */
export function useUserGroupMock(options?: UseUserGroupMockOptions): UserGroupMockFixture {
  return useMockWith({ beforeAll, afterAll, beforeEach, afterEach, runner: 'vitest' }, options);
}
