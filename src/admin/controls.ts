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
import type { Fault, FaultSpec } from '../runtime/faults.js';
import type { JournalEntry, JournalQuery } from '../runtime/journal.js';
import { type MockContext, runtimeOf } from '../runtime/mockContext.js';
import type { Health, TenantHandle, TokenOwner } from '../spec/types.js';
import { checkAdminSchema } from './document.js';

export type { Health, TenantHandle, TokenOwner };

/** The package's own `package.json`, two levels up from this module in the sources and in `dist/` alike. */
const packageJsonUrl = new URL('../../package.json', import.meta.url);
let version: string | undefined;
const packageVersion = (): string => {
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

  return {
    /** Empties the groups, journal and faults of a scope. */
    async reset(tenant = defaultTenantId): Promise<void> {
      const runtime = runtimeOf(context, tenant);
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
      const groups = [...(store.world.tenants.get(tenant)?.groups.values() ?? [])];
      return environment === undefined ? groups : groups.filter((g) => g.environment === environment);
    },

    /** The group a user-group token identifies right now, within the scope. */
    token(token: string, tenant = defaultTenantId): TokenOwner | undefined {
      const found = findByToken(store.world, token);
      if (found === undefined || found.tenant.id !== tenant) return undefined;
      const { environment, provided_id, name, team_id, properties } = found.group;
      return { environment, provided_id, name, team_id, properties };
    },

    requests(query: JournalQuery = {}, tenant = defaultTenantId): JournalEntry[] {
      return runtimeOf(context, tenant).journal.list(query);
    },

    clearRequests(tenant = defaultTenantId): void {
      runtimeOf(context, tenant).journal.clear();
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
      return runtimeOf(context, tenant).faults.add(spec);
    },

    faults(tenant = defaultTenantId): Fault[] {
      return runtimeOf(context, tenant).faults.list();
    },

    clearFaults(tenant = defaultTenantId): void {
      runtimeOf(context, tenant).faults.clear();
    },

    /** Ready (a mock that answers is), the package version, and where the groups are kept. */
    health(): Health {
      return { status: 'ready', version: packageVersion(), store: context.storeKind };
    },
  };
}

export type Controls = ReturnType<typeof createControls>;
