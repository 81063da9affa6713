// What useUserGroupMock() of user-group-mock/vitest and user-group-mock/jest does, over the hooks the runner gives:
// the mock for the file, a tenant for each test, and after each test a check of every request that arrived during it.
import {
  createMockServer,
  type JournalEntry,
  type MockControls,
  type MockServerOptions,
  type Tenant,
} from '../index.js';

/** A running mock a fixture can use: in process (`createMockServer()`), or remote (`connectMock()`, a container). */
export interface MockHandle extends MockControls {
  readonly url: string;
  close(): Promise<void>;
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
  /** The running test's own tenant: its keys (`tenant.keys.Customer`) and its controls. */
  readonly tenant: Tenant;
  /** The mock's base URL, for the client under test. */
  readonly url: string;
}

type Hook = (fn: () => Promise<void>, timeout?: number) => void;
/** The four hooks of the runner (vitest's imports, Jest's globals). */
export interface RunnerHooks {
  readonly beforeAll: Hook;
  readonly afterAll: Hook;
  readonly beforeEach: Hook;
  readonly afterEach: Hook;
}

const product = 'user-group-mock';
const contractBreak = ['fail', 'warn', 'off'] as const;

/** Registers the hooks of the fixture; its `mock` and `tenant` are there once they have run. */
export function useMockWith(hooks: RunnerHooks, options: UseUserGroupMockOptions = {}): UserGroupMockFixture {
  const onBreak = options.onContractBreak ?? 'fail';
  if (!contractBreak.includes(onBreak))
    throw new TypeError(
      `${product}: useUserGroupMock({ onContractBreak }): ${JSON.stringify(onBreak)} is none of 'fail', 'warn', 'off'`,
    );
  const timeout = options.timeoutMs ?? 120_000;
  let mock: MockHandle | undefined;
  let tenant: Tenant | undefined;
  /** The newest entry of the default tenant's journal when the test began: what came after arrived during it. */
  let mark = 0;

  hooks.beforeAll(async () => {
    mock = await (options.start?.() ?? createMockServer(options.server));
  }, timeout);
  hooks.afterAll(async () => {
    await mock?.close();
    mock = undefined;
  }, timeout);
  hooks.beforeEach(async () => {
    const running = started(mock);
    tenant = await running.createTenant();
    mark = (await running.requests({ limit: 1 }))[0]?.id ?? 0;
  }, timeout);
  hooks.afterEach(async () => {
    const running = started(mock);
    const own = tenant;
    tenant = undefined;
    if (own === undefined) return;
    try {
      if (onBreak === 'off') return;
      const broken = await own.requests({ invalid: true });
      const strays = (await running.requests({ invalid: true })).filter((entry) => entry.id > mark);
      const dropped = await own.droppedRequests();
      const message = contractBreakMessage(broken, strays, dropped, onBreak);
      if (message === undefined) return;
      if (onBreak === 'warn') console.warn(message);
      else throw new Error(message);
    } finally {
      await own.delete().catch(() => undefined);
    }
  }, timeout);

  return {
    get mock() {
      return started(mock);
    },
    get tenant() {
      if (tenant === undefined)
        throw new Error(
          `${product}: the fixture's tenant is made for each test (beforeEach); read fixture.tenant inside a test or a beforeEach/afterEach hook, not when the file loads`,
        );
      return tenant;
    },
    get url() {
      return started(mock).url;
    },
  };
}

function started(mock: MockHandle | undefined): MockHandle {
  if (mock === undefined)
    throw new Error(
      `${product}: the fixture's mock starts in beforeAll; read fixture.mock and fixture.url inside a test or a hook, not when the file loads`,
    );
  return mock;
}

/**
 * The message that lists the requests of a test that broke the contract, each with its first diagnostic (which
 * names the fix); undefined when there are none.
 */
export function contractBreakMessage(
  own: readonly JournalEntry[],
  strays: readonly JournalEntry[],
  dropped = 0,
  onBreak: 'fail' | 'warn' = 'fail',
): string | undefined {
  if (own.length === 0 && strays.length === 0 && dropped === 0) return undefined;
  const lines = [
    ...own.map((entry) => describe(entry, '')),
    ...strays.map((entry) =>
      describe(entry, ", with no tenant's key: check that the client sends the test's key"),
    ),
  ];
  const count = own.length + strays.length;
  const head =
    count === 0
      ? `${product}: the journal of this test's tenant dropped ${dropped} entries (journalLimit), so some requests went unchecked`
      : `${product}: ${count} request${count === 1 ? '' : 's'} sent during this test broke the contract:`;
  const tail = [
    ...(count > 0 && dropped > 0
      ? [`  (and ${dropped} older entries were dropped past journalLimit, unchecked)`]
      : []),
    `Each is in the journal, with every diagnostic: tenant.requests({ invalid: true }), or mock.requests({ invalid: true }) for those no tenant's key let in. ${
      onBreak === 'warn'
        ? "onContractBreak: 'fail' (the default) to fail the test, or 'off' not to check."
        : "onContractBreak: 'warn' or 'off' to only report them or not check."
    }`,
  ];
  return [head, ...lines, ...tail].join('\n');
}

function describe(entry: JournalEntry, whose: string): string {
  const first = entry.diagnostics[0];
  const code = (entry.responseBody as { error?: { code?: unknown } } | null)?.error?.code;
  const fix =
    first === undefined ? 'no diagnostic (see the journal entry)' : `${first.message} (at ${first.path})`;
  const more = entry.diagnostics.length > 1 ? ` (+${entry.diagnostics.length - 1} more)` : '';
  return `  - ${fix}${more}: ${entry.method} ${entry.path} answered ${entry.status}${typeof code === 'string' ? ` ${code}` : ''}${whose}`;
}
