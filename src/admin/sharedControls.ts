import { defaultTenantId, type Environment, type TenantKeys } from '../domain/model.js';
import type { GroupSeed } from '../domain/seed.js';
import { errorFromDiagnostics } from '../errors.js';
import { failure, ok, type Result } from '../result.js';
import type { FaultSpec } from '../runtime/faults.js';
import { type JournalQuery, type RequestWatcher, watcherListener } from '../runtime/journal.js';
import type { MockContext } from '../runtime/mockContext.js';
import { abandonScope, runtimeOf, type SharedState } from '../runtime/mockContext.js';
import type { Health, TenantSummary, TokenOwner } from '../spec/types.js';
import { checkAdminSchema } from './adminDocument.js';
import {
  type AdminControls,
  commandLineKeys,
  packageVersion,
  tenantMissing,
  tenantRemovalRefused,
  unknownTenant,
} from './controls.js';
import { checkJournalQuery } from './journalQuery.js';

/**
 * The fixture controls when the store is PostgreSQL: the same controls as `createControls`, each one reading or
 * changing the shared database, so that every replica answers the same. Watching the journal hears this replica's
 * requests (the event stream of `/__admin/requests/events` is per replica).
 */
export function createSharedControls(context: MockContext, shared: SharedState): AdminControls {
  const { store, runtime } = shared;
  /** The tenant id a control was given, checked (as `createControls` does). */
  const known = async (tenant: unknown, control: string): Promise<string> => {
    if (typeof tenant === 'string' && (await store.tenantExists(tenant))) return tenant;
    throw unknownTenant(tenant, control);
  };

  return {
    async reset(tenant = defaultTenantId) {
      const id = await known(tenant, 'reset');
      abandonScope(context, id);
      runtimeOf(context, id).journal.clear();
      await runtime.clear(id);
      await runtime.clearFaults(id);
      await store.clearTenant(id);
    },

    async seedGroup(seed: GroupSeed, tenant = defaultTenantId) {
      const diagnostics = checkAdminSchema('/components/schemas/SeedGroupRequest', seed, '');
      if (diagnostics.length > 0) {
        const lead = 'the group does not match SeedGroupRequest (openapi/admin.yaml): ';
        return failure(errorFromDiagnostics('VALIDATION_FAILED', diagnostics, lead));
      }
      return (await store.seed(tenant, seed, context.ids)) ?? failure(tenantMissing(tenant));
    },

    async groups(tenant = defaultTenantId, environment?: Environment) {
      return store.groups(await known(tenant, 'groups'), environment);
    },

    async removeGroups(tenant = defaultTenantId, environment?: Environment) {
      await store.clearTenant(await known(tenant, 'removeGroups'), environment);
    },

    async token(token: string, tenant = defaultTenantId): Promise<TokenOwner | undefined> {
      const scope = await known(tenant, 'token');
      const found = await store.groupByToken(token);
      if (found === undefined || found.tenant !== scope) return undefined;
      const { environment, provided_id, name, team_id, properties } = found.group;
      return { environment, provided_id, name, team_id, properties };
    },

    async requests(query: JournalQuery = {}, tenant = defaultTenantId) {
      const checked = checkJournalQuery(query);
      return runtime.list(await known(tenant, 'requests'), checked);
    },

    async clearRequests(tenant = defaultTenantId) {
      const id = await known(tenant, 'clearRequests');
      runtimeOf(context, id).journal.clear();
      await runtime.clear(id);
    },

    async droppedRequests(tenant = defaultTenantId) {
      return runtime.dropped(await known(tenant, 'droppedRequests'));
    },

    async createTenant() {
      const id = context.ids.tenantId();
      const api_keys: TenantKeys = { Customer: context.ids.apiKey(), Testing: context.ids.apiKey() };
      await store.putTenant(id, api_keys);
      context.keys.learn(api_keys.Customer, { tenant: id, environment: 'Customer' });
      context.keys.learn(api_keys.Testing, { tenant: id, environment: 'Testing' });
      return { id, api_keys };
    },

    async deleteTenant(id: string, scope = defaultTenantId): Promise<Result<void>> {
      const refused =
        tenantRemovalRefused(id, scope) ?? ((await store.deleteTenant(id)) ? undefined : tenantMissing(id));
      if (refused !== undefined) return failure(refused);
      abandonScope(context, id);
      context.runtimes.delete(id);
      context.keys.forget(id);
      return ok(undefined);
    },

    async injectFault(spec: FaultSpec, tenant = defaultTenantId) {
      const diagnostics = checkAdminSchema('/components/schemas/FaultRequest', spec, '');
      if (diagnostics.length > 0) {
        const lead = 'the fault does not match FaultRequest (openapi/admin.yaml): ';
        return failure(errorFromDiagnostics('VALIDATION_FAILED', diagnostics, lead));
      }
      return ok(await runtime.addFault(await known(tenant, 'injectFault'), spec));
    },

    async faults(tenant = defaultTenantId) {
      return runtime.faults(await known(tenant, 'faults'));
    },

    async clearFaults(tenant = defaultTenantId) {
      await runtime.clearFaults(await known(tenant, 'clearFaults'));
    },

    async health(): Promise<Health> {
      const up = await store.reachable();
      return {
        status: up ? 'ready' : 'degraded',
        version: packageVersion(),
        store: 'postgres',
        database: up ? 'up' : 'down',
      };
    },

    async tenants(scope = defaultTenantId): Promise<TenantSummary[]> {
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

    watchRequests(watcher: RequestWatcher, tenant = defaultTenantId): () => void {
      return runtimeOf(context, tenant).journal.subscribe(watcherListener(watcher));
    },
  };
}
