import { readFileSync } from 'node:fs';
import type { Change } from '../domain/changes.js';
import {
  defaultTenantId,
  type Environment,
  findByToken,
  type Group,
  type TenantKeys,
} from '../domain/model.js';
import { type GroupSeed, seedGroup } from '../domain/seed.js';
import { type ApiError, apiError, errorFromDiagnostics, product } from '../errors.js';
import { failure, ok, type Result } from '../result.js';
import type { Fault, FaultSpec } from '../runtime/faults.js';
import {
  type JournalEntry,
  type JournalQuery,
  type RequestWatcher,
  watcherListener,
} from '../runtime/journal.js';
import { abandonScope, type MockContext, runtimeOf } from '../runtime/mockContext.js';
import type { Health, TenantHandle, TenantSummary, TokenOwner } from '../spec/types.js';
import { checkAdminSchema } from './adminDocument.js';
import type { Controls } from './controlsApi.js';
import { checkJournalQuery } from './journalQuery.js';

export type { AdminControls, Controls } from './controlsApi.js';
export type { Health, TenantHandle, TenantSummary, TokenOwner };

/** The package's own `package.json`, two levels up from this module in the sources and in `dist/` alike. */
const packageJsonUrl = new URL('../../package.json', import.meta.url);
let version: string | undefined;
export const packageVersion = (): string => {
  version ??= (JSON.parse(readFileSync(packageJsonUrl, 'utf8')) as { version: string }).version;
  return version;
};

/** The mistake of passing a control a tenant id that does not exist, or something else in its place. */
export function unknownTenant(tenant: unknown, control: string): Error {
  const given =
    typeof tenant === 'string'
      ? `no tenant "${tenant}"`
      : `the tenant argument is ${tenant === null ? 'null' : typeof tenant}, not a tenant id`;
  return new Error(
    `${product}: ${control}: ${given}; pass the id that createTenant() returned (tenant.id), or nothing for the default tenant`,
  );
}

/** A tenant id no control knows; the fix named for both ways of calling the controls. */
export const tenantMissing = (id: string): ApiError =>
  apiError(
    'TENANT_NOT_FOUND',
    `no tenant "${id}"; create one with POST /__admin/tenants (in process: await mock.createTenant())`,
  );

/**
 * Why a call acting for `scope` may not remove tenant `id`, or undefined when it may (whether `id` exists is the
 * caller's to check): the default tenant never (it is reset instead), another tenant only from the default scope or
 * its own.
 */
export function tenantRemovalRefused(id: string, scope: string): ApiError | undefined {
  if (id === defaultTenantId)
    return apiError(
      'TENANT_NOT_FOUND',
      'the default tenant cannot be removed; reset it with POST /__admin/reset',
    );
  if (scope !== defaultTenantId && scope !== id)
    return apiError(
      'TENANT_NOT_FOUND',
      `tenant "${id}" can be removed only by itself (Authorization: Token <one of its keys>) or from the default scope (no Authorization header); this call acts for tenant "${scope}"`,
    );
  return undefined;
}

/** The fixture controls over one mock's store and runtime state. */
export function createControls(context: MockContext): Controls {
  const { store } = context;
  /**
   * The tenant id a control was given, checked: a typo or a tenant object in its place would otherwise read an
   * empty journal, and a test asserting "no invalid requests" would pass for nothing.
   */
  const known = (tenant: unknown, control: string): string => {
    if (typeof tenant === 'string' && store.world.tenants.has(tenant)) return tenant;
    throw unknownTenant(tenant, control);
  };

  return {
    async reset(tenant = defaultTenantId): Promise<void> {
      const runtime = runtimeOf(context, known(tenant, 'reset'));
      abandonScope(context, tenant);
      runtime.journal.clear();
      runtime.faults.clear();
      if (store.world.tenants.get(tenant)?.groups.size) await store.commit([{ op: 'clearTenant', tenant }]);
    },

    async seedGroup(seed: GroupSeed, tenant = defaultTenantId): Promise<Result<Group>> {
      const diagnostics = checkAdminSchema('/components/schemas/SeedGroupRequest', seed, '');
      if (diagnostics.length > 0) {
        const lead = 'the group does not match SeedGroupRequest (openapi/admin.yaml): ';
        return failure(errorFromDiagnostics('VALIDATION_FAILED', diagnostics, lead));
      }
      const scope = store.world.tenants.get(tenant);
      if (scope === undefined) return failure(tenantMissing(tenant));
      const seeded = seedGroup(store.world, scope, seed, context.ids);
      if (!seeded.ok) return seeded;
      await store.commit(seeded.value.changes);
      return ok(seeded.value.body);
    },

    groups(tenant = defaultTenantId, environment?: Environment): Group[] {
      const groups = [...(store.world.tenants.get(known(tenant, 'groups'))?.groups.values() ?? [])];
      return environment === undefined ? groups : groups.filter((g) => g.environment === environment);
    },

    async removeGroups(tenant = defaultTenantId, environment?: Environment): Promise<void> {
      const scope = store.world.tenants.get(known(tenant, 'removeGroups'));
      if (scope === undefined || scope.groups.size === 0) return;
      if (environment === undefined) {
        await store.commit([{ op: 'clearTenant', tenant }]);
        return;
      }
      const changes: Change[] = [...scope.groups]
        .filter(([, group]) => group.environment === environment)
        .map(([key]) => ({ op: 'deleteGroup', tenant, key }));
      if (changes.length > 0) await store.commit(changes);
    },

    token(token: string, tenant = defaultTenantId): TokenOwner | undefined {
      const scope = known(tenant, 'token');
      const found = findByToken(store.world, token);
      if (found === undefined || found.tenant.id !== scope) return undefined;
      const { environment, provided_id, name, team_id, properties } = found.group;
      return { environment, provided_id, name, team_id, properties };
    },

    requests(query: JournalQuery = {}, tenant = defaultTenantId): JournalEntry[] {
      return runtimeOf(context, known(tenant, 'requests')).journal.list(checkJournalQuery(query));
    },

    clearRequests(tenant = defaultTenantId): void {
      runtimeOf(context, known(tenant, 'clearRequests')).journal.clear();
    },

    droppedRequests(tenant = defaultTenantId): number {
      return runtimeOf(context, known(tenant, 'droppedRequests')).journal.dropped;
    },

    async createTenant(): Promise<TenantHandle> {
      const id = context.ids.tenantId();
      const api_keys: TenantKeys = { Customer: context.ids.apiKey(), Testing: context.ids.apiKey() };
      await store.commit([{ op: 'putTenant', tenant: id, keys: api_keys }]);
      context.keys.rebuild(store.world);
      return { id, api_keys };
    },

    async deleteTenant(id: string, scope = defaultTenantId): Promise<Result<void>> {
      const refused =
        tenantRemovalRefused(id, scope) ?? (store.world.tenants.has(id) ? undefined : tenantMissing(id));
      if (refused !== undefined) return failure(refused);
      const change: Change = { op: 'deleteTenant', tenant: id };
      abandonScope(context, id);
      await store.commit([change]);
      context.runtimes.delete(id);
      context.keys.rebuild(store.world);
      return ok(undefined);
    },

    injectFault(spec: FaultSpec, tenant = defaultTenantId): Result<Fault> {
      const diagnostics = checkAdminSchema('/components/schemas/FaultRequest', spec, '');
      if (diagnostics.length > 0) {
        const lead = 'the fault does not match FaultRequest (openapi/admin.yaml): ';
        return failure(errorFromDiagnostics('VALIDATION_FAILED', diagnostics, lead));
      }
      return ok(runtimeOf(context, known(tenant, 'injectFault')).faults.add(spec));
    },

    faults(tenant = defaultTenantId): Fault[] {
      return runtimeOf(context, known(tenant, 'faults')).faults.list();
    },

    clearFaults(tenant = defaultTenantId): void {
      runtimeOf(context, known(tenant, 'clearFaults')).faults.clear();
    },

    health(): Health {
      return { status: 'ready', version: packageVersion(), store: context.storeKind };
    },

    tenants(scope = defaultTenantId): TenantSummary[] {
      const visible = [...store.world.tenants.values()].filter(
        (tenant) => scope === defaultTenantId || tenant.id === scope,
      );
      return visible
        .sort((a, b) => Number(b.id === defaultTenantId) - Number(a.id === defaultTenantId))
        .map((tenant) => ({
          id: tenant.id,
          api_keys: tenant.keys === null ? commandLineKeys(context) : { ...tenant.keys },
          groups: tenant.groups.size,
        }));
    },

    watchRequests(watcher: RequestWatcher, tenant = defaultTenantId): () => void {
      const listener = watcherListener(watcher);
      return runtimeOf(context, known(tenant, 'watchRequests')).journal.subscribe(listener);
    },
  };
}

/** The first command-line key of each environment (the default tenant's keys). */
export function commandLineKeys(context: MockContext): TenantSummary['api_keys'] {
  const keys: { Customer?: string; Testing?: string } = {};
  for (const { key, environment } of context.keys.defaults) keys[environment] ??= key;
  return keys;
}
