// The controls' interfaces, apart from their implementation (createControls, over the runtime's MockContext), so
// that the package's public declarations reach only these shapes, never the store, the log or the database driver.
import type { Environment, Group } from '../domain/model.js';
import type { GroupSeed } from '../domain/seed.js';
import type { Result } from '../result.js';
import type { Fault, FaultSpec } from '../runtime/faults.js';
import type { JournalEntry, JournalQuery, RequestWatcher } from '../runtime/journal.js';
import type { Health, TenantHandle, TenantSummary, TokenOwner } from '../spec/types.js';

export type { Health, TenantHandle, TenantSummary, TokenOwner };

/**
 * The fixture controls: what a test does to the mock besides calling the service, in process (`MockServer` has
 * them) or through the `/__admin` routes (one implementation for both). Each acts on one tenant's scope, the default
 * tenant's unless a tenant id is given; the command-line keys belong to the default tenant. A control that can
 * fail returns a `Result`. Two mistakes of the calling code throw instead (or reject): a tenant id that does not
 * exist (`seedGroup` and `deleteTenant` answer `TENANT_NOT_FOUND`), and a database file that cannot be written.
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
  groups(tenant?: string, environment?: Environment): Group[];
  /**
   * Removes the groups of a scope (of one environment when one is given), keeping its journal and pending faults:
   * how provider states are set up without losing what the mock said about earlier requests.
   */
  removeGroups(tenant?: string, environment?: Environment): Promise<void>;
  /** The group a user-group token identifies right now, within the scope; undefined when none does. */
  token(token: string, tenant?: string): TokenOwner | undefined;
  /** The journal of a scope, oldest first: what the client sent and how the mock answered. */
  requests(query?: JournalQuery, tenant?: string): JournalEntry[];
  /** Empties the journal of a scope. */
  clearRequests(tenant?: string): void;
  /**
   * How many of the scope's oldest journal entries were dropped to keep the journal within its limit
   * (`journalLimit`, default 1000) since the last reset or clear: when it is not 0, `requests()` did not see every
   * request. Over HTTP, the `X-Journal-Dropped` header of `GET /__admin/requests`.
   */
  droppedRequests(tenant?: string): number;
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
  injectFault(spec: FaultSpec, tenant?: string): Result<Fault>;
  /** The pending faults of a scope, with their `remaining` counts. */
  faults(tenant?: string): Fault[];
  /** Removes the pending faults of a scope. */
  clearFaults(tenant?: string): void;
  /** Ready (a mock that answers is), the package version, and where the groups are kept. */
  health(): Health;
  /** The tenants a scope sees, with a key of each environment: all of them from the default scope. */
  tenants(scope?: string): TenantSummary[];
  /**
   * Calls `watcher` with each request journaled in the scope from now on, as `requests()` lists it, until the
   * returned function is called: `watchRequests((entry) => ...)`, or `{ entry(entry) {}, cleared() {} }` to hear
   * the journal being emptied too.
   */
  watchRequests(watcher: RequestWatcher, tenant?: string): () => void;
}

/**
 * The controls as the admin API calls them: each may wait for its store, as the controls over PostgreSQL do
 * (src/admin/sharedControls.ts). Watching the journal stays synchronous: it hears this replica's requests.
 */
export type AdminControls = {
  readonly [K in keyof Controls]: K extends 'watchRequests'
    ? Controls[K]
    : (
        ...args: Parameters<Controls[K]>
      ) => ReturnType<Controls[K]> | Promise<Awaited<ReturnType<Controls[K]>>>;
};
