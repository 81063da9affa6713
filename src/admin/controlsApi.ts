// The controls' interfaces, apart from their implementation (createControls, over the runtime's MockContext), so
// that the package's public declarations reach only these shapes, never the store, the log or the database driver.
import type { Environment, Group } from '../domain/model.js';
import type { GroupSeed } from '../domain/seed.js';
import type { Result } from '../result.js';
import type { Health, TenantHandle, TenantSummary, TokenOwner } from '../spec/types.js';
import type { Fault, FaultSpec } from '../store/faults.js';
import type { JournalEntry, JournalQuery, RequestWatcher } from '../store/journal.js';

/**
 * The fixture controls: what a test does to the mock besides calling the service, in process (`MockServer` has
 * them) or through the `/__admin` routes (one implementation for both), the same on every store (memory, a
 * database file, PostgreSQL); each returns a promise. Each acts on one tenant's scope, the default tenant's unless a
 * tenant id is given; the command-line keys belong to the default tenant. A control that can fail resolves to a
 * `Result`. Two mistakes of the calling code reject instead: a tenant id that does not exist (`seedGroup` and
 * `deleteTenant` answer `TENANT_NOT_FOUND`), and a store that cannot be written (or, PostgreSQL, reached).
 */
export interface Controls {
  /**
   * Empties the groups, the journal and the pending faults of a scope, and starts the rate limit of its keys again;
   * its requests still waiting on a planned delay end without an answer and are not journaled.
   */
  reset(tenant?: string): Promise<void>;
  /**
   * Stores a group as given (a given token and team_id are kept); an error when it breaks `SeedGroupRequest` of
   * openapi/admin.yaml (`VALIDATION_FAILED`), the tenant is unknown, or the id, token or team_id is taken
   * (`GROUP_EXISTS`).
   */
  seedGroup(seed: GroupSeed, tenant?: string): Promise<Result<Group>>;
  /** The groups of a scope, of one environment when one is given. */
  groups(tenant?: string, environment?: Environment): Promise<Group[]>;
  /**
   * Removes the groups of a scope (of one environment when one is given), keeping its journal and pending faults:
   * how provider states are set up without losing what the mock said about earlier requests.
   */
  removeGroups(tenant?: string, environment?: Environment): Promise<void>;
  /** The group a user-group token identifies right now, within the scope; undefined when none does. */
  token(token: string, tenant?: string): Promise<TokenOwner | undefined>;
  /** The journal of a scope, oldest first: what the client sent and how the mock answered. */
  requests(query?: JournalQuery, tenant?: string): Promise<JournalEntry[]>;
  /** Empties the journal of a scope. */
  clearRequests(tenant?: string): Promise<void>;
  /**
   * How many of the scope's oldest journal entries were dropped to keep the journal within its limit
   * (`journalLimit`, default 1000) since the last reset or clear: when it is not 0, `requests()` did not see every
   * request. Over HTTP, the `X-Journal-Dropped` header of `GET /__admin/requests`.
   */
  droppedRequests(tenant?: string): Promise<number>;
  /**
   * A new tenant with its own pair of API keys (Customer and Testing), groups, journal and faults, which no other
   * tenant sees. `team_id`s and (with `seed`) tokens come from one sequence for the whole mock.
   */
  createTenant(): Promise<TenantHandle>;
  /** Removes a tenant and its groups; from a tenant's own scope only that tenant can be removed. */
  deleteTenant(id: string, scope?: string): Promise<Result<void>>;
  /**
   * Plans a fault for the next matching `/api/user` calls of the scope; an error (`VALIDATION_FAILED`) when the
   * spec breaks `FaultRequest` of openapi/admin.yaml.
   */
  injectFault(spec: FaultSpec, tenant?: string): Promise<Result<Fault>>;
  /** The pending faults of a scope, with their `remaining` counts. */
  faults(tenant?: string): Promise<Fault[]>;
  /** Removes the pending faults of a scope. */
  clearFaults(tenant?: string): Promise<void>;
  /** Ready (a mock that answers is), the package version, and where the groups are kept. */
  health(): Promise<Health>;
  /** The tenants a scope sees, with a key of each environment: all of them from the default scope. */
  tenants(scope?: string): Promise<TenantSummary[]>;
  /**
   * Calls `watcher` with each request this process journals in the scope from now on, as `requests()` lists it,
   * until the function it resolves to is called: `await watchRequests((entry) => ...)`, or
   * `{ entry(entry) {}, cleared() {} }` to hear the journal being emptied too.
   */
  watchRequests(watcher: RequestWatcher, tenant?: string): Promise<() => void>;
}

/** @deprecated Since 0.2 every control is awaitable on every store: use `Controls`. */
export type AdminControls = Controls;
