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
import { type MockContext, runtimeOf } from '../http/context.js';
import type { Health, TenantHandle, TenantSummary, TokenOwner } from '../spec/types.js';
import { checkAdminSchema } from './document.js';
import type { Fault, FaultSpec } from './faults.js';
import type { JournalEntry, JournalListener, JournalQuery } from './journal.js';

export type { Health, TenantHandle, TenantSummary, TokenOwner };

/** The package's own `package.json`, two levels up from this module in the sources and in `dist/` alike. */
const packageJsonUrl = new URL('../../package.json', import.meta.url);
let version: string | undefined;
export const packageVersion = (): string => {
  version ??= (JSON.parse(readFileSync(packageJsonUrl, 'utf8')) as { version: string }).version;
  return version;
};

export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/**
 * The fixture controls, one implementation for the `/__admin` routes and the in-process handle. Each acts on
 * one tenant's scope; the default tenant is the one the command-line keys belong to.
 */
export function createControls(context: MockContext) {
  const { store } = context;
  const tenantMissing = (id: string): ApiError =>
    apiError('TENANT_NOT_FOUND', `no tenant "${id}"; create one with POST /__admin/tenants`);
  /**
   * The tenant id a control was given, checked: a typo or a tenant object in its place would otherwise read an
   * empty journal, and a test asserting "no invalid requests" would pass for nothing.
   */
  const known = (tenant: unknown, control: string): string => {
    if (typeof tenant === 'string' && store.world.tenants.has(tenant)) return tenant;
    const given =
      typeof tenant === 'string'
        ? `no tenant "${tenant}"`
        : `the tenant argument is ${tenant === null ? 'null' : typeof tenant}, not a tenant id`;
    throw new Error(
      `${product}: ${control}: ${given}; pass the id that createTenant() returned (tenant.id), or nothing for the default tenant`,
    );
  };

  return {
    /** Empties the groups, journal and faults of a scope. */
    async reset(tenant = defaultTenantId): Promise<void> {
      const runtime = runtimeOf(context, known(tenant, 'reset'));
      runtime.journal.clear();
      runtime.faults.clear();
      if (store.world.tenants.get(tenant)?.groups.size) await store.commit([{ op: 'clearTenant', tenant }]);
    },

    /** Stores a group as given (a given token is kept); checked against `SeedGroupRequest` of admin.yaml. */
    async seedGroup(seed: GroupSeed, tenant = defaultTenantId): Promise<Result<Group>> {
      const diagnostics = checkAdminSchema('/components/schemas/SeedGroupRequest', seed, '');
      if (diagnostics.length > 0) {
        const lead = 'the group does not match SeedGroupRequest (openapi/admin.yaml): ';
        return { ok: false, error: errorFromDiagnostics('VALIDATION_FAILED', diagnostics, lead) };
      }
      const scope = store.world.tenants.get(tenant);
      if (scope === undefined) return { ok: false, error: tenantMissing(tenant) };
      const outcome = seedGroup(store.world, scope, seed, context.ids);
      if (!outcome.ok) return outcome;
      await store.commit(outcome.changes);
      return { ok: true, value: outcome.body };
    },

    groups(tenant = defaultTenantId, environment?: Environment): Group[] {
      const groups = [...(store.world.tenants.get(known(tenant, 'groups'))?.groups.values() ?? [])];
      return environment === undefined ? groups : groups.filter((g) => g.environment === environment);
    },

    /** The group a user-group token identifies right now, within the scope. */
    token(token: string, tenant = defaultTenantId): TokenOwner | undefined {
      const scope = known(tenant, 'token');
      const found = findByToken(store.world, token);
      if (found === undefined || found.tenant.id !== scope) return undefined;
      const { environment, provided_id, name, team_id, properties } = found.group;
      return { environment, provided_id, name, team_id, properties };
    },

    requests(query: JournalQuery = {}, tenant = defaultTenantId): JournalEntry[] {
      if (query === null || typeof query !== 'object')
        throw new Error(
          `${product}: requests(query, tenantId): the query object comes first, e.g. requests({ invalid: true }, tenant.id)`,
        );
      return runtimeOf(context, known(tenant, 'requests')).journal.list(query);
    },

    clearRequests(tenant = defaultTenantId): void {
      runtimeOf(context, known(tenant, 'clearRequests')).journal.clear();
    },

    async createTenant(): Promise<TenantHandle> {
      const id = context.ids.tenantId();
      const api_keys: TenantKeys = { Customer: context.ids.apiKey(), Testing: context.ids.apiKey() };
      await store.commit([{ op: 'putTenant', tenant: id, keys: api_keys }]);
      context.keys.rebuild(store.world);
      return { id, api_keys };
    },

    /** Removes a tenant; from a tenant's own scope only that tenant exists. */
    async deleteTenant(id: string, scope = defaultTenantId): Promise<Result<void>> {
      const visible = scope === defaultTenantId || scope === id;
      if (id === defaultTenantId || !visible || !store.world.tenants.has(id)) {
        return {
          ok: false,
          error:
            id === defaultTenantId
              ? apiError(
                  'TENANT_NOT_FOUND',
                  'the default tenant cannot be removed; reset it with POST /__admin/reset',
                )
              : tenantMissing(id),
        };
      }
      const change: Change = { op: 'deleteTenant', tenant: id };
      await store.commit([change]);
      context.runtimes.delete(id);
      context.keys.rebuild(store.world);
      return { ok: true, value: undefined };
    },

    /** Plans a fault; throws when the spec breaks `FaultRequest` of admin.yaml (the HTTP route checks first). */
    injectFault(spec: FaultSpec, tenant = defaultTenantId): Fault {
      const diagnostics = checkAdminSchema('/components/schemas/FaultRequest', spec, '');
      if (diagnostics.length > 0) {
        const problems = diagnostics.map((d) => d.message).join('; ');
        throw new Error(`${product}: injectFault: ${problems} (see FaultRequest in openapi/admin.yaml)`);
      }
      return runtimeOf(context, known(tenant, 'injectFault')).faults.add(spec);
    },

    faults(tenant = defaultTenantId): Fault[] {
      return runtimeOf(context, known(tenant, 'faults')).faults.list();
    },

    clearFaults(tenant = defaultTenantId): void {
      runtimeOf(context, known(tenant, 'clearFaults')).faults.clear();
    },

    /** Ready (a mock that answers is), the package version, and where the groups are kept. */
    health(): Health {
      return { status: 'ready', version: packageVersion(), store: context.storeKind };
    },

    /** The tenants a scope sees, with a key of each environment: all of them from the default scope. */
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

    /** Hears each request journaled in the scope from now on, until the returned function is called. */
    watchRequests(listener: JournalListener, tenant = defaultTenantId): () => void {
      return runtimeOf(context, known(tenant, 'watchRequests')).journal.subscribe(listener);
    },
  };
}

export type Controls = ReturnType<typeof createControls>;

/** The first command-line key of each environment (the default tenant's keys). */
function commandLineKeys(context: MockContext): TenantSummary['api_keys'] {
  const keys: { Customer?: string; Testing?: string } = {};
  for (const { key, environment } of context.keys.defaults) keys[environment] ??= key;
  return keys;
}
