import type { AdminOperationId } from '../admin/adminDocument.js';
import { type Controls, createControls, packageVersion } from '../admin/controls.js';
import { createAdminHandler } from '../admin/createAdminHandler.js';
import { checkJournalQuery } from '../admin/journalQuery.js';
import { reach } from '../contract/reach.js';
import { cryptoIds } from '../domain/ids.js';
import { type ApiError, apiError } from '../errors.js';
import { createDispatcher } from '../http/app.js';
import { closeServer, startServer } from '../http/listen.js';
import { KeyScopes, keyScope } from '../model/keyScope.js';
import { ReferenceModel } from '../model/referenceModel.js';
import { KeyRing } from '../runtime/keyRing.js';
import { createLog } from '../runtime/log.js';
import { type MockContext, tenantState } from '../runtime/mockContext.js';
import { checkOptions, withDefaults } from '../runtime/options.js';
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
import { stopForwarding, target as targetOf } from './forward.js';
import { ProxyExchange, proxyExchangeSettings } from './proxyExchange.js';
import {
  checkRecordPath,
  ProxyOptionError,
  parseTarget,
  proxyOptions,
  readCa,
  type ValidatingProxyOptions,
} from './proxyOptions.js';
import { RecordingFile } from './recordingFile.js';

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
  /** Empties the journal and forgets what the reference model has seen (known groups, rotated tokens). */
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

/**
 * Starts a validating proxy in this process: requests to it are checked by the mock's pipeline, forwarded to the
 * target, and the target's answers checked against the document and the service's rules; both verdicts go to a
 * journal with the mock's admin API (`/__admin/requests?invalid=true`). Resolves once it listens.
 */
export async function createValidatingProxy(options: ValidatingProxyOptions): Promise<ValidatingProxy> {
  checkOptions('createValidatingProxy', options, proxyOptions, ProxyOptionError);
  const settings = withDefaults(proxyOptions, options);
  const { bodyLimit, timeout } = settings;
  const base = parseTarget(options.target);
  const ca = options.targetCa === undefined ? undefined : await readCa(options.targetCa);
  if (options.record !== undefined) await checkRecordPath(options.record);
  const { server, serve, ...listening } = await startServer(
    { ...settings, headersTimeout: 10_000, requestTimeout: Math.max(30_000, timeout + 10_000) },
    "read the proxy's journal",
    (message) => new ProxyOptionError(message),
  );
  const stopping = new AbortController();
  const store = await openStore(undefined, { ids: cryptoIds, journalLimit: defaultJournalLimit });
  const context: MockContext = {
    store,
    keys: new KeyRing([], []),
    ids: cryptoIds,
    logger: await createLog(settings.logLevel),
    bodyLimit,
    rateLimiter: undefined,
    adminKey: options.adminKey === '' ? undefined : options.adminKey,
    tenants: new Map(),
    stopping: stopping.signal,
  };
  const journal = tenantState(context, 'default').journal;
  const model = new ReferenceModel({
    knowledge: 'learning',
    environments: new Map(
      (options.apiKeys ?? []).map(({ key, environment }) => [keyScope(key), environment]),
    ),
  });
  const recording =
    options.record === undefined
      ? undefined
      : new RecordingFile(
          options.record,
          { consumer: settings.pactConsumer, provider: settings.pactProvider },
          (scope) => model.environmentOf(scope),
          options.onWarning ?? ((message) => process.emitWarning(message)),
        );
  const target = targetOf(base, timeout, bodyLimit, ca);
  const mockControls = createControls(context);
  const controls = {
    ...mockControls,
    reset: async (tenant?: string) => {
      await mockControls.reset(tenant);
      model.clear();
    },
    health: async (): Promise<Health> => {
      // A TCP connect within a second: learnt cheaply, without sending the service a request.
      const { ok: reachable } = await reach(base.href, Math.min(1000, timeout));
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
    lenient: settings.mode === 'lenient',
    blockInvalid: settings.blockInvalid,
    model,
    recording,
    scopes: new KeyScopes(),
  };
  const exchanges = proxyExchangeSettings(proxy);
  const admin = createAdminHandler(context, controls, {
    has: (operationId) => !mockOnlyOperations.has(operationId),
    lacking: mockOnly(options.target),
    tenants: false,
  });
  const pages = createPages(context, new AssetStore(), 'proxy');
  serve(
    createDispatcher({
      logger: context.logger,
      admin,
      pages,
      exchange: (req, res, head) => new ProxyExchange(proxy, exchanges, req, res, head),
    }),
  );
  let closing: Promise<void> | undefined;
  const shutDown = async (): Promise<void> => {
    stopping.abort();
    // Requests still waiting on the target when the grace period ends get a 504 saying so, not a cut connection.
    await closeServer(server, undefined, () => stopForwarding(target));
    stopForwarding(target);
    await store.close();
    await recording?.close();
  };
  return {
    ...listening,
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

/** The 404 of a mock-only admin operation; `served` lists the admin routes the proxy has. */
const mockOnly =
  (target: string) =>
  (method: string, path: string, served: readonly string[]): ApiError => {
    const message = `${method} ${path} is an admin route of the mock, and this is a validating proxy in front of ${target}: it keeps no groups, tokens, tenants or faults of its own, the service does. Here the admin API has ${served.join(', ')}, and the browser pages are ${pagePaths('proxy').join(', ')}; to seed or inject faults, run user-group-mock serve`;
    return apiError('ROUTE_NOT_FOUND', message, [{ code: 'ROUTE_NOT_FOUND', path: '/path', message }]);
  };
