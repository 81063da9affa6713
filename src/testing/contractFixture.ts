// What useUserGroupMock() of user-group-mock/vitest and user-group-mock/jest does, over the hooks the runner gives:
// the mock for the file, a tenant for each test, and after each test a check of every request that arrived during it.
import {
  createMockServer,
  type JournalEntry,
  type MockControls,
  type MockServerOptions,
  type Tenant,
} from '../index.js';
import { removedTenantIn } from '../pipeline/authenticate.js';
import { serveOptions } from '../runtime/serveOptions.js';
import { nearest } from '../validate/nearest.js';

/** A running mock a fixture can use: in process (`createMockServer()`), or remote (`connectMock()`, a container). */
export interface MockHandle extends MockControls {
  readonly url: string;
  close(): Promise<void>;
  /** Whether other clients may share the mock (`connectMock()`'s): a request with no tenant's key may be theirs. */
  readonly shared?: boolean;
}

export interface UseUserGroupMockOptions {
  /**
   * Starts the mock for the test file: `createMockServer(options.server)` unless given, e.g.
   * `() => connectMock({ url, adminKey })` or `startUserGroupMockContainer` (user-group-mock/testcontainers).
   */
  readonly start?: () => Promise<MockHandle>;
  /** The options of `createMockServer()` when `start` is not given. */
  readonly server?: MockServerOptions;
  /**
   * What a request that broke the contract during a test does: `'fail'` (the default) fails the test after it ran,
   * `'warn'` prints the same message with `console.warn`, `'off'` checks nothing.
   */
  readonly onContractBreak?: 'fail' | 'warn' | 'off';
  /** Milliseconds the hooks may take, starting a container included (default 120,000). */
  readonly timeoutMs?: number;
}

/** The mock of the test file and the tenant of the running test. */
export interface UserGroupMockFixture {
  /** The running mock and its controls (the default tenant's unless given an id). */
  readonly mock: MockHandle;
  /**
   * The running test's own tenant: its keys (`tenant.keys.Customer`) and its controls. While tests of the file run
   * at once (vitest's `it.concurrent`), it cannot tell which test asks: use `tenantOf(context)` there.
   */
  readonly tenant: Tenant;
  /**
   * The tenant of the test whose context vitest gives (`it.concurrent('…', async (context) => …)`, or a hook's
   * argument): the one way to a test's tenant while tests of the file run at once.
   */
  tenantOf(context: object): Tenant;
  /** The mock's base URL, for the client under test. */
  readonly url: string;
}

/** A hook of the runner; vitest calls `fn` with the test's context, Jest with nothing. */
type Hook = (fn: (context?: unknown) => Promise<void>, timeout?: number) => void;
/** The four hooks of the runner (vitest's imports, Jest's globals). */
export interface RunnerHooks {
  readonly beforeAll: Hook;
  readonly afterAll: Hook;
  readonly beforeEach: Hook;
  readonly afterEach: Hook;
  /** Whose hooks these are, for the messages (Jest runs no hook for a test.concurrent). */
  readonly runner?: 'vitest' | 'jest';
  /** Whether the code asking runs in a test the runner runs concurrently without hooks (Jest's test.concurrent). */
  readonly inHooklessTest?: () => boolean;
}

const product = 'user-group-mock';
const contractBreak = ['fail', 'warn', 'off'] as const;
const fixtureOptions = ['start', 'server', 'onContractBreak', 'timeoutMs'];

/** Registers the hooks of the fixture; its `mock` and `tenant` are there once they have run. */
export function useMockWith(hooks: RunnerHooks, options: UseUserGroupMockOptions = {}): UserGroupMockFixture {
  checkFixtureOptions(options);
  const jest = hooks.runner === 'jest';
  const onBreak = options.onContractBreak ?? 'fail';
  if (!contractBreak.includes(onBreak))
    throw new TypeError(
      `${product}: useUserGroupMock({ onContractBreak }): ${JSON.stringify(onBreak)} is none of 'fail', 'warn', 'off'`,
    );
  const timeout = options.timeoutMs ?? 120_000;
  let mock: MockHandle | undefined;
  /**
   * The tests between their beforeEach and afterEach, by their context (vitest's) or as one (Jest's hooks give
   * none: its tests run one at a time, and it runs no hook for a test.concurrent): each test's tenant, the newest
   * entry of the default tenant's journal when it began (what came after arrived during it), and whether another
   * test ran beside it (then a request no tenant's key let in may be the other's).
   */
  const running = new Map<
    object,
    { tenant: Tenant; mark: number; droppedMark: number; beside: boolean; concurrent: boolean }
  >();
  const withoutContext = {};
  // vitest's test context is a function (calling it throws: done callbacks are gone), so either kind is a key.
  const keyOf = (context: unknown): object =>
    (typeof context === 'object' && context !== null) || typeof context === 'function'
      ? context
      : withoutContext;

  /**
   * The newest entry of the default tenant's journal when the file began, and the entries since that a test's check
   * took as its own: an invalid one neither took arrived outside the tests (in beforeAll or afterAll, or between
   * tests), and the file's last hook reports it.
   */
  let fileMark = 0;
  let fileDroppedMark = 0;
  const takenByTests = new Set<number>();
  let droppedInTests = 0;

  hooks.beforeAll(async () => {
    mock = await (options.start?.() ?? createMockServer(options.server));
    fileMark = (await mock.requests({ limit: 1 }))[0]?.id ?? 0;
    fileDroppedMark = await mock.droppedRequests();
  }, timeout);
  hooks.afterAll(async () => {
    const handle = mock;
    if (handle === undefined) return;
    try {
      if (onBreak === 'off') return;
      const outside = (await handle.requests({ invalid: true })).filter(
        (entry) => entry.id > fileMark && !takenByTests.has(entry.id),
      );
      const dropped = Math.max(
        0,
        droppedSince(fileDroppedMark, await handle.droppedRequests()) - droppedInTests,
      );
      const message = outsideTestsMessage(outside, onBreak, dropped);
      if (message === undefined) return;
      if (onBreak === 'warn') console.warn(message);
      else throw new Error(message);
    } finally {
      await handle.close();
      mock = undefined;
    }
  }, timeout);
  hooks.beforeEach(async (context) => {
    const handle = started(mock);
    const tenant = await handle.createTenant();
    const mark = (await handle.requests({ limit: 1 }))[0]?.id ?? 0;
    const droppedMark = await handle.droppedRequests();
    // vitest marks a test of it.concurrent or describe.concurrent on its task.
    const concurrent =
      (context as { task?: { concurrent?: unknown } } | undefined)?.task?.concurrent === true;
    running.set(keyOf(context), { tenant, mark, droppedMark, beside: running.size > 0, concurrent });
    if (running.size > 1) for (const test of running.values()) test.beside = true;
  }, timeout);
  hooks.afterEach(async (context) => {
    const handle = started(mock);
    const key = keyOf(context);
    const own = running.get(key);
    running.delete(key);
    if (own === undefined) return;
    try {
      if (onBreak === 'off') return;
      const broken = await own.tenant.requests({ invalid: true });
      const strays = (await handle.requests({ invalid: true })).filter((entry) => entry.id > own.mark);
      for (const entry of strays) takenByTests.add(entry.id);
      const dropped = await own.tenant.droppedRequests();
      const strayDropped = droppedSince(own.droppedMark, await handle.droppedRequests());
      droppedInTests += strayDropped;
      const others = handle.shared === true ? 'shared' : own.beside ? 'beside' : undefined;
      const message = contractBreakMessage(broken, strays, dropped, onBreak, others, strayDropped);
      if (message === undefined) return;
      if (onBreak === 'warn') console.warn(message);
      else throw new Error(message);
    } finally {
      await own.tenant.delete().catch(() => undefined);
    }
  }, timeout);

  return {
    get mock() {
      return started(mock);
    },
    get tenant() {
      if (mock === undefined)
        throw new Error(
          `${product}: the fixture's tenant is made for each test (beforeEach); read fixture.tenant inside a test or a beforeEach/afterEach hook, not when the file loads`,
        );
      if (running.size === 0 || hooks.inHooklessTest?.() === true)
        throw new Error(
          jest
            ? `${product}: no test of this file holds a tenant now. Jest runs no beforeEach or afterEach for a test.concurrent, so such a test gets no tenant and is not checked: write it with test(). Otherwise fixture.tenant was read after its test ended (a promise left running)`
            : `${product}: no test of this file holds a tenant now: the fixture's tenant is made for each test (beforeEach) and removed after it (afterEach); read fixture.tenant while the test runs, not after it ended (a promise left running)`,
        );
      if (running.size > 1 || [...running.values()].some((test) => test.concurrent))
        throw new Error(
          `${product}: tests of this file run at once (it.concurrent or describe.concurrent), so fixture.tenant cannot tell which test asks; take the test's own with its context: it.concurrent('…', async (context) => { const tenant = fixture.tenantOf(context); … })`,
        );
      return [...running.values()][0]?.tenant as Tenant;
    },
    tenantOf(context: object) {
      const key = keyOf(context);
      const test = jest || key === withoutContext ? undefined : running.get(key);
      if (test === undefined)
        throw new Error(
          jest
            ? `${product}: fixture.tenantOf(context) is for vitest's concurrent tests; under Jest read fixture.tenant in a test(): Jest runs no beforeEach for a test.concurrent, which so gets no tenant`
            : `${product}: fixture.tenantOf(context) knows no running test of that context; give it the context vitest passes to the test (async (context) => …) or to a beforeEach/afterEach hook, while the test runs`,
        );
      return test.tenant;
    },
    get url() {
      return started(mock).url;
    },
  };
}

/** Refuses an option useUserGroupMock() does not take, pointing a mock's option (`journalLimit`) to `server`. */
function checkFixtureOptions(options: unknown): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new TypeError(
      `${product}: useUserGroupMock(options): the options are an object, e.g. useUserGroupMock({ server: { journalLimit: 5_000 } }), not ${JSON.stringify(options)}`,
    );
  for (const name of Object.keys(options)) {
    if (fixtureOptions.includes(name)) continue;
    const meant = nearest(name, fixtureOptions);
    throw new TypeError(
      name in serveOptions
        ? `${product}: useUserGroupMock({ ${name} }): ${name} is an option of the mock, given inside server: useUserGroupMock({ server: { ${name}: … } })`
        : `${product}: useUserGroupMock({ ${name} }): there is no option "${name}"${meant === undefined ? '' : `; did you mean "${meant}"?`} (the options: ${fixtureOptions.join(', ')}; the mock's own go inside server)`,
    );
  }
}

function started(mock: MockHandle | undefined): MockHandle {
  if (mock === undefined)
    throw new Error(
      `${product}: the fixture's mock starts in beforeAll; read fixture.mock and fixture.url inside a test or a hook, not when the file loads`,
    );
  return mock;
}

/** Who else may have sent a request with no tenant's key that arrived during a test. */
const strayOrigins = {
  beside: ' (sent by this test or one running beside it)',
  shared:
    ' (sent by this test, or by another client of the mock, which runs outside this process: other test files or pipelines that share it land in the same journal)',
} as const;

/**
 * The message that lists the requests of a test that broke the contract, each with its first diagnostic (which
 * names the fix); undefined when there are none.
 */
export function contractBreakMessage(
  own: readonly JournalEntry[],
  strays: readonly JournalEntry[],
  dropped = 0,
  onBreak: 'fail' | 'warn' = 'fail',
  others: 'beside' | 'shared' | undefined = undefined,
  strayDropped = 0,
): string | undefined {
  if (own.length === 0 && strays.length === 0 && dropped === 0 && strayDropped === 0) return undefined;
  const lines = [
    ...own.map((entry) => describe(entry, '')),
    ...strays.map((entry) => {
      const removed = removedTenantOf(entry);
      return describe(
        entry,
        removed !== undefined
          ? `, with the key of tenant ${removed}, removed after its test ended: a request that test left running, landing in this one; await every request before a test ends`
          : `, with no tenant's key${others === undefined ? '' : strayOrigins[others]}: check that the client sends the test's key`,
      );
    }),
  ];
  const count = own.length + strays.length;
  const unchecked = [
    ...(dropped > 0
      ? [`the journal of this test's tenant dropped ${dropped} entries past journalLimit`]
      : []),
    ...(strayDropped > 0
      ? [
          `the default tenant's journal, which holds the requests with no tenant's key, dropped ${strayDropped} entries past journalLimit while this test ran`,
        ]
      : []),
  ].join(', and ');
  const head =
    count === 0
      ? `${product}: ${unchecked}, so some requests went unchecked; ${keepMore}`
      : `${product}: ${count} request${count === 1 ? '' : 's'} sent during this test broke the contract:`;
  if (count === 0) return head;
  const tail = [
    ...(unchecked !== '' ? [`  (and ${unchecked}, unchecked; ${keepMore})`] : []),
    `Each is in the journal, with every diagnostic: tenant.requests({ invalid: true }), or mock.requests({ invalid: true }) for those no tenant's key let in. One sent wrong on purpose: clear it once seen, tenant.clearRequests()${strays.length > 0 ? " (mock.clearRequests() for one no tenant's key let in)" : ''}. ${
      onBreak === 'warn'
        ? "onContractBreak: 'fail' (the default) to fail the test, or 'off' not to check."
        : "onContractBreak: 'warn' or 'off' to only report them or not check."
    }`,
  ];
  return [head, ...lines, ...tail].join('\n');
}

/**
 * The message that lists the requests that broke the contract while the file ran but outside its tests, with no
 * tenant's key (a test's tenant exists only while it runs); undefined when there are none.
 */
export function outsideTestsMessage(
  entries: readonly JournalEntry[],
  onBreak: 'fail' | 'warn' = 'fail',
  dropped = 0,
): string | undefined {
  if (entries.length === 0 && dropped === 0) return undefined;
  const count = entries.length;
  const unchecked = `the default tenant's journal, which holds the requests with no tenant's key, dropped ${dropped} entries past journalLimit while this file ran`;
  if (count === 0) return `${product}: ${unchecked}, so some requests went unchecked; ${keepMore}`;
  return [
    `${product}: ${count} request${count === 1 ? '' : 's'} sent outside the tests of this file (in beforeAll or afterAll, between tests, or by a promise a test left running) broke the contract:`,
    ...entries.map((entry) => describe(entry, '')),
    ...(dropped > 0 ? [`  (and ${unchecked}, unchecked; ${keepMore})`] : []),
    `Each is in the journal: mock.requests({ invalid: true }). Send requests from the tests, with the test's tenant's keys, where each is checked as its own; one sent wrong on purpose: clear it once seen, mock.clearRequests(). ${
      onBreak === 'warn'
        ? "onContractBreak: 'fail' (the default) to fail the file, or 'off' not to check."
        : "onContractBreak: 'warn' or 'off' to only report them or not check."
    }`,
  ].join('\n');
}

/** The tenant whose removed key the request carried, as the mock's refusal names it. */
function removedTenantOf(entry: JournalEntry): string | undefined {
  const message = (entry.responseBody as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof message === 'string' ? removedTenantIn(message) : undefined;
}

/** The entries a journal dropped since `mark` (a clear or reset in between starts its count again). */
const droppedSince = (mark: number, now: number): number => (now >= mark ? now - mark : now);

const keepMore =
  'keep more with useUserGroupMock({ server: { journalLimit: N } }) (default 1,000; --journal-limit N for a mock run as a process)';

function describe(entry: JournalEntry, whose: string): string {
  const first = entry.diagnostics[0];
  const code = (entry.responseBody as { error?: { code?: unknown } } | null)?.error?.code;
  const fix =
    first === undefined ? 'no diagnostic (see the journal entry)' : `${first.message} (at ${first.path})`;
  const more = entry.diagnostics.length > 1 ? ` (+${entry.diagnostics.length - 1} more)` : '';
  return `  - ${fix}${more}: ${entry.method} ${entry.path} answered ${entry.status}${typeof code === 'string' ? ` ${code}` : ''}${whose}`;
}
