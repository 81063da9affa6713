import type { Environment, Group, KeyOwner, TenantKeys } from '../domain/model.js';
import type { GroupSeed } from '../domain/seed.js';
import type { Decision, RotatedAway } from '../domain/userGroups.js';
import { product } from '../errors.js';
import type { Result } from '../result.js';
import type { Operation } from '../spec/operations.js';
import type { Health } from '../spec/types.js';
import type { Fault, FaultSpec, Faults } from './faults.js';
import type { Journal, JournalEntry, JournalQuery, JournalRecord } from './journal.js';
import type { PendingDelays } from './pendingDelays.js';
import type { RetiredTokens } from './retiredTokens.js';

/**
 * What a key is to the store: a tenant's key, a group token sent in its place (a group's current token, or one a
 * rotation the journal still lists replaced), or unknown.
 */
export type KeyLookup = KeyOwner | 'group-token' | undefined;

export interface TenantRow {
  readonly id: string;
  /** Null for the default tenant, whose keys are the command line's. */
  readonly keys: TenantKeys | null;
  readonly groups: number;
}

/**
 * What this process holds of one tenant: the journal of the requests it served (which watchers hear), the planned
 * faults, the tokens its rotations replaced, and the requests waiting on a planned delay. The embedded stores keep a
 * tenant's journal and faults there; PostgreSQL keeps them in its tables.
 */
export interface TenantState {
  readonly id: string;
  readonly journal: Journal;
  readonly faults: Faults;
  /** The tokens rotations replaced, as this process's journal heard them. */
  readonly retired: RetiredTokens;
  /** The requests waiting on a planned fault's delay: a reset or the tenant's removal cancels them. */
  readonly delays: PendingDelays;
}

/**
 * A service request as the store serves it (`ServiceExchange` is one). The store answers through one of the three
 * callbacks, in the same tick when it needs nothing from the disk (an embedded store's read, decision 3).
 */
export interface ServiceCall {
  readonly operation: Operation;
  readonly owner: KeyOwner;
  readonly body: unknown;
  /** The journal entry of the answer to this decision, when the store writes it with the change (PostgreSQL). */
  journal(decision: Decision<unknown>): JournalRecord;
  /** The planned fault that was due, claimed: nothing else was done. */
  faulted(fault: Fault): void;
  /**
   * The rule's result, its change durable; `journaled` when its journal entry was written with the change; `shown`,
   * the stored group object a get-or-create answered unchanged in this tick, when the store holds it (the answer is
   * then a function of that object alone: decision 10).
   */
  stored(result: Result<Decision<unknown>>, journaled: boolean, shown?: Group): void;
  /** The store could not serve the request: `StoreUnavailableError` when it is out of reach, else a bug. */
  storeFailed(error: Error): void;
}

/**
 * The request path's port, kept by every store: memory and a database file (`EmbeddedStore`, synchronous where it
 * can be) and PostgreSQL (`PostgresStore`). What serving one request needs, and the store's life; nothing above
 * src/store asks which store it has.
 */
export interface RequestStore {
  readonly kind: Health['store'];
  /** Serves a service request: the planned fault due claimed (when `claimFault`), else the rule and its change. */
  serve(call: ServiceCall, tenant: TenantState, claimFault: boolean): void;
  /** Whose key this is, for a key the key ring does not know: a tenant's, a group token sent as one, or none. */
  lookUpKey(key: string): Promise<KeyLookup>;
  /** The rotation that replaced `token` in the tenant's journal, if it keeps one, and whether the group still is. */
  rotatedAway(
    tenant: TenantState,
    token: string,
  ): Promise<{ retired: RotatedAway; groupExists: boolean } | undefined>;
  /**
   * Journals a request answered without a change, then calls `written` (with the error if it failed): at once when
   * the tenant's journal in memory is the journal (an embedded store), once the entry is stored otherwise.
   */
  record(tenant: string, record: JournalRecord, written: (error?: Error) => void): void;
  /** Ready, or degraded with the database out of reach. */
  health(): Promise<Pick<Health, 'status' | 'database'>>;
  /** Waits for every commit, then closes (and releases the database file's lock, or the pool). */
  close(): Promise<void>;
}

/** The tenants, as the controls make, list and remove them. */
export interface TenantFixtures {
  tenantExists(tenant: string): Promise<boolean>;
  tenants(): Promise<TenantRow[]>;
  /**
   * Stores a new tenant with its keys; false, storing nothing, when its id or one of its keys is a tenant's already
   * (replicas on one database started with the same `--seed` draw the same ones).
   */
  putTenant(tenant: string, keys: TenantKeys): Promise<boolean>;
  /** Removes a tenant with its groups, journal and faults; false when there was none (or it is the default). */
  deleteTenant(tenant: string): Promise<boolean>;
}

/** The groups, as the controls seed, read and clear them. */
export interface GroupFixtures {
  /** Stores a group as given; undefined when the tenant does not exist. */
  seed(tenant: string, seed: GroupSeed): Promise<Result<Group> | undefined>;
  /** A tenant's groups, by team_id, of one environment when one is given. */
  groups(tenant: string, environment?: Environment): Promise<Group[]>;
  group(tenant: string, environment: Environment, providedId: string): Promise<Group | undefined>;
  groupByToken(token: string): Promise<{ tenant: string; group: Group } | undefined>;
  clearGroups(tenant: string, environment?: Environment): Promise<void>;
}

/** A tenant's journal and planned faults, as the controls read, plan and clear them. */
export interface JournalFixtures {
  requests(tenant: TenantState, query: JournalQuery): Promise<JournalEntry[]>;
  clearRequests(tenant: TenantState): Promise<void>;
  droppedRequests(tenant: TenantState): Promise<number>;
  addFault(tenant: TenantState, spec: FaultSpec): Promise<Fault>;
  faults(tenant: TenantState): Promise<Fault[]>;
  clearFaults(tenant: TenantState): Promise<void>;
}

/**
 * A store: the request path's port and the fixtures, one contract every store keeps. The request path sees only
 * `RequestStore`; the controls (src/admin/controls.ts) the fixtures.
 */
export interface Store extends RequestStore, TenantFixtures, GroupFixtures, JournalFixtures {}

/** The store could not write a change: nothing of it was kept (the client may retry). */
export class StoreWriteError extends Error {}

/**
 * The store could not be reached, or dropped the connection: retry later. Nothing of the request was kept when it
 * never reached the database; when the connection dropped while its statement was in flight (`inFlight`), the
 * database may have committed it before it went, and nobody can tell the client which.
 */
export class StoreUnavailableError extends Error {
  /** What the API answers (`STORE_UNAVAILABLE`): the message without the product prefix that logs carry. */
  readonly reason: string;
  constructor(cause: Error, inFlight = false) {
    const reason = inFlight
      ? `PostgreSQL became unavailable while this request was in flight (${cause.message}), so it may or may not have been kept. Retry once the database is back: a get-or-create or an update asked again leaves one result either way (a get-or-create answers new_user_group false if it was kept), and a rotation asked again with the same token answers 404 TOKEN_NOT_FOUND if it was.`
      : `PostgreSQL is unavailable (${cause.message}); nothing of this request was kept. Retry once the database is back.`;
    super(`${product}: ${reason}`, { cause });
    this.reason = reason;
  }
}
