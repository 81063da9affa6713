// The fixture controls as a test calls them (in process, or over /__admin with connectMock): each rejects with a
// MockControlError when the calling code misused it, and createTenant() hands back a tenant whose controls need no
// id. Built over the result-returning Controls that the admin API answers from.
import type { Environment, Group } from '../domain/model.js';
import type { GroupSeed } from '../domain/seed.js';
import type { ApiError } from '../errors.js';
import type { Result } from '../result.js';
import { operations } from '../spec/operations.js';
import type { Health, TenantHandle, TenantSummary, TokenOwner } from '../spec/types.js';
import type { Fault, FaultSpec } from '../store/faults.js';
import type { JournalEntry, JournalQuery, RequestWatcher } from '../store/journal.js';
import { nearest } from '../validate/nearest.js';
import type { Controls } from './controlsApi.js';
import { MockControlError } from './mockControlError.js';

/** A tenant's two API keys, one per environment: send them as `Authorization: Token <key>`. */
export type TenantKeys = TenantHandle['api_keys'];

/**
 * One tenant of the mock and its controls, which act on its scope alone and take no id: its own API keys, groups,
 * journal and faults, which no other tenant sees. Every control returns a promise and rejects with a
 * `MockControlError` naming the fix when it is misused.
 */
export interface Tenant {
  readonly id: string;
  /** The tenant's API keys: `tenant.keys.Customer`, `tenant.keys.Testing`. */
  readonly keys: TenantKeys;
  /** The same keys, under the name `POST /__admin/tenants` answers with. */
  readonly api_keys: TenantKeys;
  /** Empties its groups, journal and faults, and starts the rate limit of its keys again. */
  reset(): Promise<void>;
  /** Stores a group as given; rejects on a group that breaks `SeedGroupRequest` or an id already there. */
  seedGroup(seed: GroupSeed): Promise<Group>;
  groups(environment?: Environment): Promise<Group[]>;
  removeGroups(environment?: Environment): Promise<void>;
  token(token: string): Promise<TokenOwner | undefined>;
  /** Its journal, oldest first; `requests({ invalid: true })` lists the requests that broke the contract. */
  requests(query?: JournalQuery): Promise<JournalEntry[]>;
  clearRequests(): Promise<void>;
  droppedRequests(): Promise<number>;
  /** Plans a fault for its next matching calls; rejects on a spec that breaks `FaultRequest`. */
  injectFault(spec: FaultSpec): Promise<Fault>;
  faults(): Promise<Fault[]>;
  clearFaults(): Promise<void>;
  watchRequests(watcher: RequestWatcher): Promise<() => void>;
  /** Removes the tenant and its groups; its keys are refused from then on. */
  delete(): Promise<void>;
}

/**
 * The fixture controls of a mock, in process (`createMockServer()`) or remote (`connectMock()`), the same on every
 * store. Each acts on the default tenant's scope unless a tenant id is given; a tenant's own controls
 * (`createTenant()`) need none. Misuse rejects with a `MockControlError`: a group or fault that breaks its schema,
 * a tenant id that does not exist, a journal query that is not one.
 */
export interface MockControls {
  reset(tenant?: string): Promise<void>;
  seedGroup(seed: GroupSeed, tenant?: string): Promise<Group>;
  groups(tenant?: string, environment?: Environment): Promise<Group[]>;
  removeGroups(tenant?: string, environment?: Environment): Promise<void>;
  token(token: string, tenant?: string): Promise<TokenOwner | undefined>;
  requests(query?: JournalQuery, tenant?: string): Promise<JournalEntry[]>;
  clearRequests(tenant?: string): Promise<void>;
  droppedRequests(tenant?: string): Promise<number>;
  /** A new tenant, with its controls. */
  createTenant(): Promise<Tenant>;
  deleteTenant(id: string, scope?: string): Promise<void>;
  injectFault(spec: FaultSpec, tenant?: string): Promise<Fault>;
  faults(tenant?: string): Promise<Fault[]>;
  clearFaults(tenant?: string): Promise<void>;
  health(): Promise<Health>;
  tenants(scope?: string): Promise<TenantSummary[]>;
  watchRequests(watcher: RequestWatcher, tenant?: string): Promise<() => void>;
}

/** The value of a control's result, or its error as a `MockControlError`. */
function unwrapped<T>(control: string, result: Result<T>): T {
  if (result.ok) return result.value;
  throw new MockControlError(control, result.error);
}

/** A fault refused for its operation id, with the operation meant (`updateUserGoup`: "updateUserGroup"). */
function withOperationMeant(spec: FaultSpec, result: Result<Fault>): Result<Fault> {
  const given = (spec as { operationId?: unknown } | undefined)?.operationId;
  if (result.ok || typeof given !== 'string') return result;
  const meant = nearest(
    given,
    operations().map((operation) => operation.operationId),
  );
  // In process the spec is checked as FaultRequest (`/operationId`); over HTTP as the body (`/body/operationId`).
  const about = (path: string) => path === '/operationId' || path === '/body/operationId';
  if (meant === undefined || !result.error.details.some((d) => about(d.path))) return result;
  // The schema's own message ends with the same suggestion: said once, first.
  const checked = result.error.message.replace(/; did you mean "[^"]*"\?$/, '');
  const error: ApiError = {
    ...result.error,
    message: `operationId "${given}" is no operation; did you mean "${meant}"? (${checked})`,
  };
  return { ok: false, error };
}

/** The controls of `controls` that reject on misuse, with tenants handed back as handles. */
export function rejectingControls(controls: Controls): MockControls {
  const mock: MockControls = {
    reset: (tenant) => controls.reset(tenant),
    seedGroup: async (seed, tenant) => unwrapped('seedGroup', await controls.seedGroup(seed, tenant)),
    groups: (tenant, environment) => controls.groups(tenant, environment),
    removeGroups: (tenant, environment) => controls.removeGroups(tenant, environment),
    token: (token, tenant) => controls.token(token, tenant),
    requests: (query, tenant) => controls.requests(query, tenant),
    clearRequests: (tenant) => controls.clearRequests(tenant),
    droppedRequests: (tenant) => controls.droppedRequests(tenant),
    createTenant: async () => tenantOf(mock, await controls.createTenant()),
    deleteTenant: async (id, scope) => unwrapped('deleteTenant', await controls.deleteTenant(id, scope)),
    injectFault: async (spec, tenant) =>
      unwrapped('injectFault', withOperationMeant(spec, await controls.injectFault(spec, tenant))),
    faults: (tenant) => controls.faults(tenant),
    clearFaults: (tenant) => controls.clearFaults(tenant),
    health: () => controls.health(),
    tenants: (scope) => controls.tenants(scope),
    watchRequests: (watcher, tenant) =>
      controls.watchRequests(watcher, tenant).catch((error: unknown) => {
        // A watcher that is neither a function nor { entry, cleared }: the calling code's mistake.
        if (!(error instanceof TypeError)) throw error;
        const message = error.message.replace(/^user-group-mock: (watchRequests )?/, '');
        throw new MockControlError('watchRequests', { code: 'VALIDATION_FAILED', message, details: [] });
      }),
  };
  return mock;
}

/** The handle of tenant `handle`: the mock's controls with its id filled in. */
export function tenantOf(mock: MockControls, { id, api_keys }: TenantHandle): Tenant {
  const keys = Object.freeze({ ...api_keys });
  return {
    id,
    keys,
    api_keys: keys,
    reset: () => mock.reset(id),
    seedGroup: (seed) => mock.seedGroup(seed, id),
    groups: (environment) => mock.groups(id, environment),
    removeGroups: (environment) => mock.removeGroups(id, environment),
    token: (token) => mock.token(token, id),
    requests: (query) => mock.requests(query, id),
    clearRequests: () => mock.clearRequests(id),
    droppedRequests: () => mock.droppedRequests(id),
    injectFault: (spec) => mock.injectFault(spec, id),
    faults: () => mock.faults(id),
    clearFaults: () => mock.clearFaults(id),
    watchRequests: (watcher) => mock.watchRequests(watcher, id),
    delete: () => mock.deleteTenant(id),
  };
}
