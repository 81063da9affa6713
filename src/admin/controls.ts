import { createRequire } from 'node:module';
import { defaultTenantId, type Environment, type TenantKeys } from '../domain/model.js';
import type { GroupSeed } from '../domain/seed.js';
import { type ApiError, apiError, errorFromDiagnostics, product } from '../errors.js';
import { failure, ok, type Result } from '../result.js';
import { abandonTenant, type MockContext, tenantState } from '../runtime/mockContext.js';
import type { TenantSummary } from '../spec/types.js';
import type { FaultSpec } from '../store/faults.js';
import { type JournalQuery, type RequestWatcher, watcherListener } from '../store/journal.js';
import type { TenantState } from '../store/store.js';
import { checkAdminSchema } from './adminDocument.js';
import type { Controls } from './controlsApi.js';
import { checkJournalQuery } from './journalQuery.js';
import { tenantNotFound } from './mockControlError.js';

export type { Controls } from './controlsApi.js';

/** The package's own `package.json`, two levels up from this module in the sources and in `dist/` alike. */
export const packageVersion = (): string =>
  (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** How many tenant ids and keys are drawn, each taken already, before making a tenant fails. */
const tenantDraws = 16;
const tenantsTaken = `${product}: ${tenantDraws} tenant ids and keys drawn in a row were a tenant's already: replicas sharing one database were most likely started with the same --seed; give each replica a seed of its own, or none`;

/** A tenant id no control knows; the fix named for both ways of calling the controls. */
const tenantMissing = (id: string): ApiError =>
  apiError(
    'TENANT_NOT_FOUND',
    `no tenant "${id}"; create one with POST /__admin/tenants (in process: await mock.createTenant())`,
  );

/**
 * Why a call acting for `scope` may not remove tenant `id`, or undefined when it may (whether `id` exists is the
 * caller's to check).
 */
function tenantRemovalRefused(id: string, scope: string): ApiError | undefined {
  const why =
    id === defaultTenantId
      ? 'the default tenant cannot be removed; reset it with POST /__admin/reset'
      : scope !== defaultTenantId && scope !== id
        ? `tenant "${id}" can be removed only by itself (Authorization: Token <one of its keys>) or from the default scope (no Authorization header); this call acts for tenant "${scope}"`
        : undefined;
  return why === undefined ? undefined : apiError('TENANT_NOT_FOUND', why);
}

/**
 * The fixture controls over one mock's store and its tenants' state in this process. Watching the journal hears this process's requests
 * only (with PostgreSQL, the event stream of `/__admin/events` is per replica).
 */
export function createControls(context: MockContext): Controls {
  const { store } = context;
  /**
   * The tenant id a control was given, checked: a typo or a tenant object in its place would otherwise read an
   * empty journal, and a test asserting "no invalid requests" would pass for nothing.
   */
  const known = async (tenant: unknown, control: string): Promise<string> => {
    if (typeof tenant === 'string' && (await store.tenantExists(tenant))) return tenant;
    throw tenantNotFound(control, tenant);
  };
  const stateOf = async (tenant: unknown, control: string) =>
    tenantState(context, await known(tenant, control));
  /** A control that only reads or empties one part of a tenant's state (its journal, its faults). */
  const ofState =
    <T>(control: string, act: (state: TenantState) => Promise<T>) =>
    async (tenant: unknown = defaultTenantId): Promise<T> =>
      act(await stateOf(tenant, control));
  const refused = (schema: string, value: unknown, what: string): Result<never> | undefined => {
    const diagnostics = checkAdminSchema(`/components/schemas/${schema}`, value, '');
    if (diagnostics.length === 0) return undefined;
    const lead = `the ${what} does not match ${schema} (openapi/admin.yaml): `;
    return failure(errorFromDiagnostics('VALIDATION_FAILED', diagnostics, lead));
  };

  return {
    async reset(tenant = defaultTenantId) {
      const state = await stateOf(tenant, 'reset');
      abandonTenant(context, state.id);
      await store.clearRequests(state);
      await store.clearFaults(state);
      await store.clearGroups(state.id);
    },

    async seedGroup(seed: GroupSeed, tenant = defaultTenantId) {
      return (
        refused('SeedGroupRequest', seed, 'group') ??
        (await store.seed(tenant, seed)) ??
        failure(tenantMissing(tenant))
      );
    },

    async groups(tenant = defaultTenantId, environment?: Environment) {
      return store.groups(await known(tenant, 'groups'), environment);
    },

    async removeGroups(tenant = defaultTenantId, environment?: Environment) {
      await store.clearGroups(await known(tenant, 'removeGroups'), environment);
    },

    async token(token: string, tenant = defaultTenantId) {
      const scope = await known(tenant, 'token');
      const found = await store.groupByToken(token);
      if (found === undefined || found.tenant !== scope) return undefined;
      const { environment, provided_id, name, team_id, properties } = found.group;
      return { environment, provided_id, name, team_id, properties };
    },

    async requests(query: JournalQuery = {}, tenant = defaultTenantId) {
      const checked = checkJournalQuery(query);
      return store.requests(await stateOf(tenant, 'requests'), checked);
    },

    clearRequests: ofState('clearRequests', (state) => store.clearRequests(state)),
    droppedRequests: ofState('droppedRequests', (state) => store.droppedRequests(state)),

    async createTenant() {
      let id = context.ids.tenantId();
      let api_keys: TenantKeys = { Customer: context.ids.apiKey(), Testing: context.ids.apiKey() };
      // Drawn again while taken: random ids never are; replicas on one database with the same --seed draw the same.
      for (let drawn = 1; !(await store.putTenant(id, api_keys)); drawn++) {
        if (drawn === tenantDraws) throw new Error(tenantsTaken);
        id = context.ids.tenantId();
        api_keys = { Customer: context.ids.apiKey(), Testing: context.ids.apiKey() };
      }
      context.keys.learn(api_keys.Customer, { tenant: id, environment: 'Customer' });
      context.keys.learn(api_keys.Testing, { tenant: id, environment: 'Testing' });
      return { id, api_keys };
    },

    async deleteTenant(id: string, scope = defaultTenantId) {
      const refusal = tenantRemovalRefused(id, scope);
      if (refusal !== undefined) return failure(refusal);
      abandonTenant(context, id);
      if (!(await store.deleteTenant(id))) return failure(tenantMissing(id));
      context.tenants.delete(id);
      context.keys.forget(id);
      return ok(undefined);
    },

    async injectFault(spec: FaultSpec, tenant = defaultTenantId) {
      return (
        refused('FaultRequest', spec, 'fault') ??
        ok(await store.addFault(await stateOf(tenant, 'injectFault'), spec))
      );
    },

    faults: ofState('faults', (state) => store.faults(state)),
    clearFaults: ofState('clearFaults', (state) => store.clearFaults(state)),

    async health() {
      return { ...(await store.health()), version: packageVersion(), store: store.kind };
    },

    async tenants(scope = defaultTenantId) {
      const visible = (await store.tenants()).filter(
        (tenant) => scope === defaultTenantId || tenant.id === scope,
      );
      return visible
        .sort((a, b) => Number(b.id === defaultTenantId) - Number(a.id === defaultTenantId))
        .map((tenant) => ({
          id: tenant.id,
          api_keys: tenant.keys === null ? commandLineKeys(context) : { ...tenant.keys },
          groups: tenant.groups,
        }));
    },

    async watchRequests(watcher: RequestWatcher, tenant = defaultTenantId) {
      const listener = watcherListener(watcher);
      return (await stateOf(tenant, 'watchRequests')).journal.subscribe(listener);
    },
  };
}

/** The first command-line key of each environment (the default tenant's keys). */
function commandLineKeys(context: MockContext): TenantSummary['api_keys'] {
  const keys: { Customer?: string; Testing?: string } = {};
  for (const { key, environment } of context.keys.defaults) keys[environment] ??= key;
  return keys;
}
