import type { AdminHost } from '../admin/adminHost.js';
import { createAdminHandler } from '../admin/createAdminHandler.js';
import { type ApiError, apiError } from '../errors.js';
import { createDispatcher } from '../http/app.js';
import { internalError } from '../http/internalError.js';
import { closeServer, startServer } from '../http/listen.js';
import { KeyScopes, keyScope } from '../model/keyScope.js';
import { ReferenceModel } from '../model/referenceModel.js';
import { createLog } from '../runtime/log.js';
import { checkOptions, withDefaults } from '../runtime/options.js';
import type { Health } from '../spec/types.js';
import {
  defaultJournalLimit,
  Journal,
  type JournalEntry,
  type JournalQuery,
  type RequestWatcher,
  watcherListener,
} from '../store/journal.js';
import { AssetStore } from '../ui/assets.js';
import { createPages, type PagesHost, pagePaths } from '../ui/pages.js';
import { warmUp } from '../validate/schemaChecks.js';
import { stopForwarding, target as targetOf } from './forward.js';
import { proxyControls } from './proxyControls.js';
import { ProxyExchange, proxyExchangeSettings } from './proxyExchange.js';
import {
  checkRecordPath,
  ProxyOptionError,
  parseTarget,
  proxyOptions,
  readCa,
  type ValidatingProxyOptions,
} from './proxyOptions.js';
import { ReadAnswers } from './readAnswers.js';
import { RecordingFile } from './recordingFile.js';
import { answerLimit } from './upstreamErrors.js';

export interface ValidatingProxy {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The target's base URL, as given. */
  readonly target: string;
  /**
   * The journal, oldest first: each request, the target's answer, and whose fault any diagnostic is (as the mock's
   * `requests()`, a promise; a query `GET /__admin/requests` would refuse rejects with a `MockControlError`).
   */
  requests(query?: JournalQuery): Promise<JournalEntry[]>;
  /** Empties the journal. */
  clearRequests(): Promise<void>;
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
  const logger = await createLog(settings.logLevel);
  // The proxy keeps no store and no keys: a bug is the only failure of its controls, and it shows no keys.
  const host: AdminHost & PagesHost = {
    logger,
    bodyLimit,
    adminKey: options.adminKey === '' ? undefined : options.adminKey,
    stopping: stopping.signal,
    apiKeys: [],
    failed: (error) => internalError(host, error),
  };
  const journal = new Journal(defaultJournalLimit);
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
  const target = targetOf(base, timeout, answerLimit(bodyLimit), ca);
  const controls = proxyControls({ journal, model, target: base, timeout });
  warmUp();
  const proxy = {
    target,
    journal,
    logger,
    bodyLimit,
    blockInvalid: settings.blockInvalid,
    model,
    recording,
    scopes: new KeyScopes(),
    answers: new ReadAnswers(settings.mode === 'lenient'),
  };
  const exchanges = proxyExchangeSettings(proxy);
  const admin = createAdminHandler(host, controls, { lacking: mockOnly(options.target) });
  const pages = createPages(host, new AssetStore(), 'proxy');
  serve(
    createDispatcher({
      logger,
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
    await recording?.close();
  };
  return {
    ...listening,
    target: options.target,
    requests: (query) => controls.requests(query),
    clearRequests: () => controls.clearRequests(),
    reset: () => controls.reset(),
    health: () => controls.health(),
    watchRequests: (watcher) => journal.subscribe(watcherListener(watcher)),
    close: () => {
      closing ??= shutDown();
      return closing;
    },
  };
}

/**
 * The 404 of an admin operation over the mock's own state (groups, tokens, tenants, faults), which a proxy keeps
 * none of; `served` lists the admin routes the proxy has.
 */
const mockOnly =
  (target: string) =>
  (method: string, path: string, served: readonly string[]): ApiError => {
    const message = `${method} ${path} is an admin route of the mock, and this is a validating proxy in front of ${target}: it keeps no groups, tokens, tenants or faults of its own, the service does. Here the admin API has ${served.join(', ')}, and the browser pages are ${pagePaths('proxy').join(', ')}. To seed groups or plan faults, send it to the service: when that is a user-group-mock, ${method} ${target.replace(/\/$/, '')}${path}; for a mock of your own, run user-group-mock serve`;
    return apiError('ROUTE_NOT_FOUND', message, [{ code: 'ROUTE_NOT_FOUND', path: '/path', message }]);
  };
