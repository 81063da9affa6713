export { defaultApiKeys } from './runtime/keyRing.js';

import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createControls } from './admin/controls.js';
import type { Controls } from './admin/controlsApi.js';
import { createAdminHandler } from './admin/createAdminHandler.js';
import { fixtureProblems } from './admin/fixtureProblems.js';
import { cryptoIds, seededIds } from './domain/ids.js';
import type { GroupSeed } from './domain/seed.js';
import { product } from './errors.js';
import { createApp } from './http/app.js';
import { answerClientErrors } from './http/clientError.js';
import { closeServer, holdRequests, listen } from './http/listen.js';
import { type ApiKey, defaultApiKeys, KeyRing } from './runtime/keyRing.js';
import { createLog } from './runtime/log.js';
import { type MockContext, retiredAnywhere, type TenantRuntime } from './runtime/mockContext.js';
import {
  apiKeysProblem,
  checkOptions,
  logLevelRule,
  type OptionRule,
  ranges,
  rateLimitProblem,
  setting,
} from './runtime/options.js';
import { RateLimiter } from './runtime/rateLimiter.js';
import type { FileSystem } from './store/fileSystem.js';
import { defaultJournalLimit } from './store/journal.js';
import { openStore } from './store/openStore.js';
import type { Store } from './store/store.js';
import { createPages } from './ui/pages.js';
import { warmUp } from './validate/schemaChecks.js';

export interface MockServerOptions {
  /** The address to listen on (default `127.0.0.1`, this machine only); beyond loopback it needs `adminKey`. */
  readonly host?: string;
  /** 0 (the default in-process) picks a free port. */
  readonly port?: number;
  /**
   * A database file, or a PostgreSQL URL (`postgres://user@host:port/db`) whose database every replica pointed at
   * it shares; without it the mock keeps everything in memory.
   */
  readonly db?: string;
  /** Connections to PostgreSQL per replica (default 10). */
  readonly poolSize?: number;
  /**
   * The keys of the default tenant, each `{ key, environment }` with the environment `Customer` (production groups)
   * or `Testing` (test groups). Default `defaultApiKeys`: dev-customer-key (Customer) and dev-testing-key (Testing).
   */
  readonly apiKeys?: readonly ApiKey[];
  /** A JSON file `{ "groups": [GroupSeed...] }` seeded at start (groups already present are kept). */
  readonly fixtures?: string;
  /** Makes tokens and ids deterministic (default: random ones). */
  readonly seed?: number;
  /** What the mock logs, on stderr: `silent` (the default in-process), `info` (the command line's) or `debug`. */
  readonly logLevel?: 'silent' | 'info' | 'debug';
  /** Largest accepted body in bytes (default 1 MiB). */
  readonly bodyLimit?: number;
  /** Milliseconds a client has to send the headers (default 10 s). */
  readonly headersTimeout?: number;
  /** Milliseconds a client has to send the whole request (default 30 s). */
  readonly requestTimeout?: number;
  /** Requests per minute per API key (a number, e.g. 180); over it, 429. Default: no limit. */
  readonly rateLimit?: number;
  /**
   * How many entries each tenant's journal keeps (default 1000); older ones are dropped and counted
   * (`droppedRequests()`, the `X-Journal-Dropped` header of `GET /__admin/requests`).
   */
  readonly journalLimit?: number;
  /** Required on `/__admin` calls when set (default: none); must be set when `host` is not loopback. */
  readonly adminKey?: string;
  /** The store's file-system seam (tests inject disk faults here); default Node's `fs/promises`. */
  readonly files?: FileSystem;
  /** Compact the change log after this many records (default 20,000). */
  readonly compactAfter?: number;
  /**
   * Receives the store's warnings about trouble it recovers from by itself (a failed compaction, retried later;
   * nothing is lost). Default: a process warning on stderr.
   */
  readonly onWarning?: (message: string) => void;
}

/** A running mock: its address and the fixture controls (each awaitable, the same on every store). */
export interface MockServer extends Controls {
  /** The same controls (an alias kept from 0.1, when only these were awaitable on every store). */
  readonly admin: Controls;
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly apiKeys: readonly ApiKey[];
  /**
   * Stops accepting, finishes in-flight requests, flushes the store and releases its lock (again: a no-op). A request
   * still waiting on a planned fault's `delay_ms` is cut at once (its connection closed, not journaled): the test
   * planned that delay, and close() does not wait it out.
   */
  close(): Promise<void>;
}

/**
 * What each option takes, checked before anything listens (the command line's flags are read into these values and
 * checked by the same ranges). Every option of MockServerOptions has a rule: the type says so.
 */
const mockServerOptionRules = {
  host: { kind: 'string', flag: 'host', nonEmpty: true },
  port: ranges.port,
  db: { kind: 'string', flag: 'db', nonEmpty: true },
  poolSize: { kind: 'integer', min: 1, max: 1000 },
  apiKeys: { kind: 'custom', check: apiKeysProblem, flag: 'api-key' },
  fixtures: { kind: 'string', flag: 'fixtures', nonEmpty: true },
  seed: ranges.seed,
  logLevel: logLevelRule,
  bodyLimit: ranges.bodyLimit,
  headersTimeout: ranges.headersTimeout,
  requestTimeout: ranges.requestTimeout,
  rateLimit: { kind: 'custom', check: rateLimitProblem, flag: 'rate-limit' },
  journalLimit: ranges.journalLimit,
  adminKey: { kind: 'string', flag: 'admin-key' },
  files: { kind: 'object' },
  compactAfter: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER },
  onWarning: { kind: 'function' },
} as const satisfies Readonly<Record<keyof MockServerOptions, OptionRule>>;

const loopback = (host: string): boolean => host === 'localhost' || host === '::1' || host.startsWith('127.');

/** Starts the mock in this process and resolves once it listens. */
export async function createMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  checkOptions('createMockServer', options, mockServerOptionRules, {
    inMemory: 'the mock keeps everything in memory unless db is given: leave out db',
  });
  const host = options.host ?? '127.0.0.1';
  const apiKeys = options.apiKeys ?? defaultApiKeys;
  if (!loopback(host) && (options.adminKey ?? '') === '') {
    throw new Error(
      `${product}: listening on ${host} (beyond loopback) needs ${setting('adminKey', 'admin-key')}, so that nobody else can reset or read the mock`,
    );
  }
  const journalLimit = options.journalLimit ?? defaultJournalLimit;
  // The port first: a port in use is refused before the store creates or locks any file.
  const server = createServer({
    headersTimeout: options.headersTimeout ?? 10_000,
    requestTimeout: options.requestTimeout ?? 30_000,
    maxHeaderSize: 16 * 1024,
    connectionsCheckingInterval: 250,
    // Node's own refusal of a missing Host has no body; the app answers it with the error envelope.
    requireHostHeader: false,
  });
  answerClientErrors(server);
  await listen(server, options.port ?? 0, host);
  const held = holdRequests(server);
  const stopping = new AbortController();
  let store: Store | undefined;
  try {
    const ids = options.seed === undefined ? cryptoIds : seededIds(options.seed);
    const opened = await openStore(options.db, {
      ids,
      journalLimit,
      poolSize: options.poolSize,
      files: options.files,
      compactAfter: options.compactAfter,
      onWarning: options.onWarning,
    });
    store = opened;
    const runtimes = new Map<string, TenantRuntime>();
    const context: MockContext = {
      store: opened,
      keys: new KeyRing(apiKeys, opened.world, (token) => retiredAnywhere(runtimes, token) !== undefined),
      ids,
      logger: await createLog(options.logLevel ?? 'silent'),
      bodyLimit: options.bodyLimit ?? 1024 * 1024,
      rateLimiter: options.rateLimit === undefined ? undefined : new RateLimiter(options.rateLimit),
      adminKey: options.adminKey === '' ? undefined : options.adminKey,
      runtimes,
      journalLimit,
      stopping: stopping.signal,
    };
    const controls = createControls(context);
    if (options.fixtures !== undefined) await seedFixtures(controls, options.fixtures);
    const checks = warmUp();
    context.logger.debug(
      { requestChecks: checks },
      checks === 'precompiled'
        ? 'request checks: precompiled at build time'
        : 'request checks: compiled at start (no build of this document)',
    );
    held.serve(createApp(context, createAdminHandler(context, controls), createPages(context)));
    return serving(server, opened, controls, host, apiKeys, stopping);
  } catch (error) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store?.close();
    throw error;
  }
}

function serving(
  server: Server,
  store: Store,
  controls: Controls,
  host: string,
  apiKeys: readonly ApiKey[],
  stopping: AbortController,
): MockServer {
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    ...controls,
    admin: controls,
    url: `http://${urlHost}:${port}`,
    host,
    port,
    apiKeys,
    close: () => {
      stopping.abort();
      closing ??= shutDown(server, store);
      return closing;
    },
  };
}

async function seedFixtures(controls: Controls, path: string): Promise<void> {
  let groups: GroupSeed[];
  try {
    groups = (JSON.parse(await readFile(path, 'utf8')) as { groups: GroupSeed[] }).groups;
    if (!Array.isArray(groups)) throw new Error('"groups" is not an array');
  } catch (error) {
    throw new Error(
      `${product}: cannot read fixtures ${path} (${(error as Error).message}); it must be JSON of the form { "groups": [ { "environment", "user_group_id", "name", ... } ] }`,
    );
  }
  const problems = fixtureProblems(groups, path);
  if (problems !== undefined) throw new Error(problems);
  for (const [index, seed] of groups.entries()) {
    const result = await controls.seedGroup(seed);
    // Groups already present (from an earlier run on the same database, or seeded by another replica) are kept.
    if (
      !result.ok &&
      result.error.code === 'GROUP_EXISTS' &&
      result.error.details[0]?.path === '/body/user_group_id'
    )
      continue;
    if (!result.ok) {
      // The details name every problem and its fix ("did you mean"); on the command line nothing else shows them.
      const problems = result.error.details.map((d) => `${d.path.replace(/^\/body/, '')}: ${d.message}`);
      throw new Error(
        `${product}: ${fixtureName(seed, index)} in ${path} cannot be seeded: ${problems.length > 0 ? problems.join('; ') : result.error.message}`,
      );
    }
  }
}

/** An entry of a fixtures file as a message names it: its place in the file, and its id when it has one. */
const fixtureName = (seed: GroupSeed, index: number): string =>
  `groups[${index}]${typeof seed?.user_group_id === 'string' ? ` ("${seed.user_group_id}")` : ''}`;

async function shutDown(server: Server, store: Store): Promise<void> {
  await closeServer(server);
  await store.close();
}
