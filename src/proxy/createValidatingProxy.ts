import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdminOperationId } from '../admin/adminDocument.js';
import { type Controls, createControls, packageVersion } from '../admin/controls.js';
import { createAdminHandler } from '../admin/createAdminHandler.js';
import { checkJournalQuery } from '../admin/journalQuery.js';
import { cryptoIds } from '../domain/ids.js';
import { type ApiError, apiError, product } from '../errors.js';
import { answerClientErrors } from '../http/clientError.js';
import { closeServer, listen } from '../http/listen.js';
import { KeyRing } from '../runtime/keyRing.js';
import { createLog } from '../runtime/log.js';
import { type MockContext, runtimeOf } from '../runtime/mockContext.js';
import { checkOptions, logLevelRule, type OptionRule, ranges } from '../runtime/options.js';
import type { Health } from '../spec/types.js';
import {
  defaultJournalLimit,
  type JournalEntry,
  type JournalQuery,
  type RequestWatcher,
  watcherListener,
} from '../store/journal.js';
import { openStore } from '../store/openStore.js';
import { AssetStore } from '../ui/assets.js';
import { createPages, pagePaths } from '../ui/pages.js';
import { warmUp } from '../validate/schemaChecks.js';
import { acceptsConnections, target as targetOf } from './forward.js';
import { createProxyApp } from './proxyApp.js';
import { checkRecordPath, ProxyOptionError, parseTarget, readCa, setting } from './proxyOptions.js';
import { Recording } from './recording.js';
import { RecordingFile } from './recordingFile.js';
import { TrafficRules } from './trafficRules.js';

export interface ValidatingProxyOptions {
  /** The base URL of the service to check (http or https), e.g. `https://staging.example.com`. */
  readonly target: string;
  /** The address to listen on (default `127.0.0.1`, this machine only); beyond loopback it needs `adminKey`. */
  readonly host?: string;
  /** 0 (the default in-process) picks a free port. */
  readonly port?: number;
  /** `strict` (the default): answers may carry no field the document does not name; `lenient` allows them. */
  readonly mode?: 'strict' | 'lenient';
  /** Answer an invalid request with the mock's 400 (or 401, 415...) instead of forwarding it. */
  readonly blockInvalid?: boolean;
  /**
   * A fixtures file to write what was seen to, with a Pact file beside it (`<name>.pact.json`): rewritten a short
   * while after each exchange (whole, then renamed into place) and on close.
   */
  readonly record?: string;
  /** The names in the recorded Pact file (default user-group-client and user-group-service). */
  readonly pactConsumer?: string;
  readonly pactProvider?: string;
  /** Milliseconds the target has to answer in full (default 10 s); then 504. */
  readonly timeout?: number;
  /** Required on `/__admin` calls when set; must be set when `host` is not loopback. */
  readonly adminKey?: string;
  /** A PEM file of the certificate authority that signed an https target's certificate. */
  readonly targetCa?: string;
  /** Largest body in bytes, of a request and of an answer (default 1 MiB, the mock's). */
  readonly bodyLimit?: number;
  /** What the proxy logs, on stderr: `silent` (the default in-process), `info` (the command line's) or `debug`. */
  readonly logLevel?: 'silent' | 'info' | 'debug';
  /**
   * Receives what goes wrong with the recording while the proxy runs (a write failed; it works again), each once.
   * Default: a process warning on stderr.
   */
  readonly onWarning?: (message: string) => void;
}

export interface ValidatingProxy {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The target's base URL, as given. */
  readonly target: string;
  /** The journal, oldest first: each request, the target's answer, and whose fault any diagnostic is. */
  requests(query?: JournalQuery): JournalEntry[];
  /** Empties the journal. */
  clearRequests(): void;
  /** Empties the journal and forgets what the traffic rules have seen (known groups, rotated tokens). */
  reset(): Promise<void>;
  /** What `/__admin/health` answers: `mode: "proxy"`, the target's origin, and whether it accepts connections now. */
  health(): Promise<Health>;
  /**
   * Calls `watcher` with each exchange journalled from now on, as `requests()` lists it, until the returned function
   * is called (the same watcher as the mock's `watchRequests`).
   */
  watchRequests(watcher: RequestWatcher): () => void;
  /**
   * Stops accepting, finishes in-flight exchanges and writes the recording (again: a no-op). Rejects with a
   * RecordingLostError, saying what is lost and where, when the recording cannot be written; the proxy is stopped.
   */
  close(): Promise<void>;
}

/** What each option takes, checked before anything listens; every option of ValidatingProxyOptions has a rule. */
const proxyOptionRules = {
  target: { kind: 'string', flag: 'target', nonEmpty: true },
  host: { kind: 'string', flag: 'host', nonEmpty: true },
  port: ranges.port,
  mode: { kind: 'oneOf', values: ['strict', 'lenient'] },
  blockInvalid: { kind: 'boolean', flag: 'block-invalid' },
  record: { kind: 'string', flag: 'record', nonEmpty: true },
  pactConsumer: { kind: 'string', flag: 'pact-consumer', nonEmpty: true },
  pactProvider: { kind: 'string', flag: 'pact-provider', nonEmpty: true },
  timeout: ranges.timeout,
  adminKey: { kind: 'string', flag: 'admin-key' },
  targetCa: { kind: 'string', flag: 'target-ca', nonEmpty: true },
  bodyLimit: ranges.bodyLimit,
  logLevel: logLevelRule,
  onWarning: { kind: 'function' },
} as const satisfies Readonly<Record<keyof ValidatingProxyOptions, OptionRule>>;

const loopback = (host: string): boolean => host === 'localhost' || host === '::1' || host.startsWith('127.');

/**
 * Starts a validating proxy in this process: requests to it are checked by the mock's pipeline, forwarded to the
 * target, and the target's answers checked against the document and the service's rules; both verdicts go to a
 * journal with the mock's admin API (`/__admin/requests?invalid=true`). Resolves once it listens.
 */
export async function createValidatingProxy(options: ValidatingProxyOptions): Promise<ValidatingProxy> {
  try {
    checkOptions('createValidatingProxy', options, proxyOptionRules);
  } catch (error) {
    throw new ProxyOptionError((error as Error).message);
  }
  if (options?.target === undefined)
    throw new ProxyOptionError(
      `${product}: createValidatingProxy: ${setting('target')} is required, the base URL of the service to check (e.g. { target: 'https://staging.example.com' })`,
    );
  const base = parseTarget(options.target);
  const host = options.host ?? '127.0.0.1';
  if (!loopback(host) && (options.adminKey ?? '') === '')
    throw new ProxyOptionError(
      `${product}: listening on ${host} (beyond loopback) needs ${setting('adminKey', 'admin-key')}, so that nobody else can read the proxy's journal`,
    );
  const ca = options.targetCa === undefined ? undefined : await readCa(options.targetCa);
  if (options.record !== undefined) await checkRecordPath(options.record);
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const timeout = options.timeout ?? 10_000;
  const server = createServer({
    headersTimeout: 10_000,
    requestTimeout: Math.max(30_000, timeout + 10_000),
    maxHeaderSize: 16 * 1024,
    connectionsCheckingInterval: 250,
    requireHostHeader: false,
  });
  answerClientErrors(server);
  await listen(server, options.port ?? 0, host);
  const stopping = new AbortController();
  const store = await openStore(undefined, { ids: cryptoIds, journalLimit: defaultJournalLimit });
  const context: MockContext = {
    store,
    keys: new KeyRing([], store.world),
    ids: cryptoIds,
    logger: await createLog(options.logLevel ?? 'silent'),
    bodyLimit,
    rateLimiter: undefined,
    adminKey: options.adminKey === '' ? undefined : options.adminKey,
    runtimes: new Map(),
    stopping: stopping.signal,
  };
  const journal = runtimeOf(context, 'default').journal;
  const rules = new TrafficRules();
  const recording =
    options.record === undefined
      ? undefined
      : new RecordingFile(
          new Recording(),
          options.record,
          {
            consumer: options.pactConsumer ?? 'user-group-client',
            provider: options.pactProvider ?? 'user-group-service',
          },
          (scope) => rules.environmentOf(scope),
          options.onWarning ?? ((message) => process.emitWarning(message)),
        );
  const target = targetOf(base, timeout, bodyLimit, ca);
  const mockControls = createControls(context);
  /**
   * A reset, in process or `POST /__admin/reset`, empties the journal and the rules' memory alike; the health is the
   * proxy's own: what it forwards to and whether that accepts connections (a proxy has no store).
   */
  const controls = {
    ...mockControls,
    reset: async (tenant?: string) => {
      await mockControls.reset(tenant);
      rules.clear();
    },
    health: async (): Promise<Health> => {
      const reachable = await acceptsConnections(target);
      return {
        status: reachable ? 'ready' : 'degraded',
        version: packageVersion(),
        mode: 'proxy',
        target: base.origin,
        target_reachable: reachable,
      };
    },
  } satisfies Controls;
  warmUp();
  const proxy = {
    target,
    journal,
    logger: context.logger,
    bodyLimit,
    lenient: options.mode === 'lenient',
    blockInvalid: options.blockInvalid === true,
    rules,
    recording,
  };
  server.on(
    'request',
    createProxyApp(
      proxy,
      createAdminHandler(context, controls, {
        has: (operationId) => !mockOnlyOperations.has(operationId),
        lacking: mockOnly(options.target),
        tenants: false,
      }),
      createPages(context, new AssetStore(), 'proxy'),
    ),
  );
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const shutDown = async (): Promise<void> => {
    stopping.abort();
    // Requests still waiting on the target when the grace period ends get a 504 saying so, not a cut connection.
    await closeServer(server, undefined, () => target.connections.close());
    target.connections.close();
    await store.close();
    await recording?.close();
  };
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    target: options.target,
    requests: (query = {}) => journal.list(checkJournalQuery(query)),
    clearRequests: () => journal.clear(),
    reset: () => controls.reset(),
    health: () => controls.health(),
    watchRequests: (watcher) => journal.subscribe(watcherListener(watcher)),
    close: () => {
      closing ??= shutDown();
      return closing;
    },
  };
}

/** The admin operations over the mock's own state (groups, tokens, tenants, faults): a proxy keeps none. */
const mockOnlyOperations: ReadonlySet<AdminOperationId> = new Set<AdminOperationId>([
  'listGroups',
  'removeGroups',
  'seedGroup',
  'checkToken',
  'listTenants',
  'createTenant',
  'deleteTenant',
  'listFaults',
  'injectFault',
  'clearFaults',
]);

/**
 * A 404 for the mock's admin operations, naming the proxy, where the state lives, and what the proxy serves: the
 * admin routes it has (the admin document's, less the mock's) and its browser pages.
 */
const mockOnly =
  (target: string) =>
  (method: string, path: string, served: readonly string[]): ApiError => {
    const message = `${method} ${path} is an admin route of the mock, and this is a validating proxy in front of ${target}: it keeps no groups, tokens, tenants or faults of its own, the service does. Here the admin API has ${served.join(', ')}, and the browser pages are ${pagePaths('proxy').join(', ')}; to seed or inject faults, run user-group-mock serve`;
    return apiError('ROUTE_NOT_FOUND', message, [{ code: 'ROUTE_NOT_FOUND', path: '/path', message }]);
  };
