import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { scopeOf } from './admin/access.js';
import type { AdminHost } from './admin/adminHost.js';
import { createControls } from './admin/controls.js';
import type { Controls } from './admin/controlsApi.js';
import { createAdminHandler } from './admin/createAdminHandler.js';
import { fixtureProblems } from './admin/fixtureProblems.js';
import { type MockControls, rejectingControls } from './admin/mockControls.js';
import { cryptoIds, seededIds } from './domain/ids.js';
import type { GroupSeed } from './domain/seed.js';
import { product } from './errors.js';
import { createApp } from './http/app.js';
import { closeServer, startServer } from './http/listen.js';
import { storeFailure } from './http/serviceExchange.js';
import { type ApiKey, defaultApiKeys, KeyRing } from './runtime/keyRing.js';
import { createLog } from './runtime/log.js';
import type { MockContext } from './runtime/mockContext.js';
import { checkOptions, withDefaults } from './runtime/options.js';
import { RateLimiter } from './runtime/rateLimiter.js';
import { type MockServerOptions, serveOptions } from './runtime/serveOptions.js';
import { openStore } from './store/openStore.js';
import type { Store, TenantState } from './store/store.js';
import { resolveEmbed } from './ui/embedToken.js';
import { createPages, type PagesHost } from './ui/pages.js';
import { warmUp } from './validate/schemaChecks.js';

export type { MockServerOptions };

/**
 * A running mock: its address and the fixture controls (each awaitable, the same on every store, rejecting with a
 * `MockControlError` when misused). `createTenant()` hands back a tenant whose own controls need no id.
 */
export interface MockServer extends MockControls {
  /** The same controls (an alias kept from 0.1, when only these were awaitable on every store). */
  readonly admin: MockControls;
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

/** Starts the mock in this process and resolves once it listens. */
export async function createMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  checkOptions('createMockServer', options, serveOptions);
  const settings = withDefaults(serveOptions, options);
  const apiKeys = options.apiKeys ?? defaultApiKeys;
  // The port first: a port in use is refused before the store creates or locks any file.
  const { server, serve, ...listening } = await startServer(settings, 'reset or read the mock');
  const stopping = new AbortController();
  let store: Store | undefined;
  try {
    const seeded = options.seed === undefined ? undefined : seededIds(options.seed);
    const ids = seeded ?? cryptoIds;
    const opened = await openStore(options.db, { ...options, ids, journalLimit: settings.journalLimit });
    store = opened;
    if (seeded !== undefined) {
      const state = await storedState(opened);
      if (state !== undefined) seeded.continueAfter(state);
    }
    const tenants = new Map<string, TenantState>();
    const context: MockContext = {
      store: opened,
      // A credential that is no key may be a group token a rotation replaced, in any tenant's memory of them.
      keys: new KeyRing(apiKeys, await opened.tenants(), (token) =>
        [...tenants.values()].some((tenant) => tenant.retired.find(token) !== undefined),
      ),
      ids,
      logger: await createLog(settings.logLevel),
      bodyLimit: settings.bodyLimit,
      rateLimiter: options.rateLimit === undefined ? undefined : new RateLimiter(options.rateLimit),
      adminKey: options.adminKey === '' ? undefined : options.adminKey,
      tenants,
      journalLimit: settings.journalLimit,
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
    const host = hostOf(context);
    serve(createApp(context, createAdminHandler(host, controls), createPages(host)));
    const mockControls = rejectingControls(controls);
    let closing: Promise<void> | undefined;
    return {
      ...mockControls,
      admin: mockControls,
      ...listening,
      apiKeys,
      close: () => {
        stopping.abort();
        for (const tenant of tenants.values()) tenant.delays.cancelAll();
        closing ??= closeServer(server).then(() => opened.close());
        return closing;
      },
    };
  } catch (error) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store?.close();
    throw error;
  }
}

/**
 * The mock as its admin API and pages see it: its context's settings, its store's failures answered as a service
 * call's, a call's scope read from its key, and the embed preview over its store.
 */
function hostOf(context: MockContext): AdminHost & PagesHost {
  const failed = (error: Error) => storeFailure(context, error);
  return {
    logger: context.logger,
    bodyLimit: context.bodyLimit,
    adminKey: context.adminKey,
    stopping: context.stopping,
    apiKeys: context.keys.defaults,
    failed,
    scopeOf: (req, head) => scopeOf(req, head, context),
    resolveEmbed: (request) => resolveEmbed(context, request).catch(failed),
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
    if (result.ok) continue;
    const { code, details, message } = result.error;
    // Groups already present (from an earlier run on the same database, or seeded by another replica) are kept.
    if (code === 'GROUP_EXISTS' && details[0]?.path === '/body/user_group_id') continue;
    // The details name every problem and its fix ("did you mean"); on the command line nothing else shows them.
    const problems = details.map((d) => `${d.path.replace(/^\/body/, '')}: ${d.message}`);
    throw new Error(
      `${product}: ${fixtureName(seed, index)} in ${path} cannot be seeded: ${problems.length > 0 ? problems.join('; ') : message}`,
    );
  }
}

/** An entry of a fixtures file as a message names it: its place in the file, and its id when it has one. */
/**
 * A digest of what a store holds (its tenants, their keys, and every group's token), or undefined when it holds
 * nothing yet: a seeded mock restarted on its own database draws from a sequence of that state, not again from the
 * start, whose tokens and tenant ids its groups and tenants still hold.
 */
async function storedState(store: Store): Promise<string | undefined> {
  const tenants = await store.tenants();
  if (tenants.every((tenant) => tenant.keys === null && tenant.groups === 0)) return undefined;
  const digest = createHash('sha256');
  for (const tenant of tenants) {
    digest.update(`${tenant.id} ${tenant.keys?.Customer ?? ''} ${tenant.keys?.Testing ?? ''}\n`);
    for (const group of await store.groups(tenant.id)) digest.update(`${group.token}\n`);
  }
  return digest.digest('hex');
}

const fixtureName = (seed: GroupSeed, index: number): string =>
  `groups[${index}]${typeof seed?.user_group_id === 'string' ? ` ("${seed.user_group_id}")` : ''}`;
