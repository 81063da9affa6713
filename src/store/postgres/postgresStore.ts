import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import type { IdSource } from '../../domain/ids.js';
import {
  defaultTenantId,
  type Environment,
  emptyWorld,
  type Group,
  type Tenant,
  type TenantKeys,
  type World,
} from '../../domain/model.js';
import { type GroupSeed, seedGroup } from '../../domain/seed.js';
import { type Caller, type Decision, getOrCreate, rotate, update } from '../../domain/userGroups.js';
import { product, tenantRemoved } from '../../errors.js';
import { failure, ok, type Result } from '../../result.js';
import type { OperationId } from '../../spec/operations.js';
import type { RequestBodies } from '../../spec/types.js';
import type { Fault, FaultSpec } from '../faults.js';
import {
  defaultJournalLimit,
  isFaultOf,
  type JournalEntry,
  type JournalQuery,
  type JournalRecord,
  journalEntry,
  rotatedAway,
  type StoredRecord,
  storedRecord,
} from '../journal.js';
import type { KeyLookup, KeyOwner, ServiceCall, Store, TenantMemory, TenantRow } from '../store.js';
import type { FaultRow } from './faultRows.js';
import { postgresUrlForm, postgresUrlProblem, withoutPassword } from './postgresUrl.js';
import { type GroupRow, groupColumns, groupOf, groupValues, partialWorld, toText } from './rows.js';
import { migrate } from './schema.js';
import { DatabaseRefusedError, startFailure, whereOf } from './startErrors.js';
import {
  type CreateRow,
  changeAndJournal,
  claimAndLock,
  createStatement,
  type JournalLine,
  keyStatement,
  type Served,
} from './statements.js';
import { TeamIds } from './teamIds.js';
import { classified, isUnavailable } from './unavailable.js';

type Owner = KeyOwner;

export interface PostgresStoreOptions {
  /** Connections of this replica (default 10). */
  readonly poolSize?: number;
  /** Trouble the pool recovers from by itself (a pooled connection that died). */
  readonly onWarning?: (message: string) => void;
  /** Where tokens, ids and team ids come from. */
  readonly ids: IdSource;
  /** How many journal entries and faults each tenant keeps (default 1000). */
  readonly capacity?: number;
}

type Client = pg.PoolClient;

/**
 * Tenants, groups, tokens and team ids, and every tenant's journal and planned faults, in PostgreSQL, shared by
 * every replica pointed at the database. Each operation is one transaction (or one statement); the rules of
 * src/domain decide the answer over the rows read, and the constraints decide the races: the primary key (tenant,
 * environment, provided_id) with `INSERT … ON CONFLICT` makes one group of concurrent get-or-creates, a rotation
 * updates `WHERE token = old`, `team_id` comes from a sequence and is unique. A success is returned only after the
 * commit. The journal and faults are bounded as the in-memory ones are: the newest `capacity` per tenant.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres';
  /** No group is held in this process: each request asks the database. */
  readonly world: World = emptyWorld();
  readonly #teamIds = new TeamIds(this);
  /**
   * The keys the database did not know, for 5 s: a client sending a wrong key on every request costs one look-up
   * per key and 5 s, and a flood of distinct wrong keys at most 10,000 remembered. Emptied when this replica makes a
   * tenant or seeds a group; a key made through another replica is random, so nobody sent it before.
   */
  readonly #misses = new LRUCache<string, true>({ max: 10_000, ttl: 5_000 });
  readonly #ids: IdSource;
  readonly #capacity: number;
  #recorded = 0;
  /** Per tenant, the entries this replica's trims deleted since this replica last emptied the journal. */
  readonly #trimmed = new Map<string, number>();

  private constructor(
    readonly pool: pg.Pool,
    /** `host:port`, for messages. */
    readonly where: string,
    options: PostgresStoreOptions,
  ) {
    this.#ids = options.ids;
    this.#capacity = options.capacity ?? defaultJournalLimit;
  }

  /** Connects, migrates the schema (under an advisory lock), and returns the store. */
  static async open(url: string, options: PostgresStoreOptions): Promise<PostgresStore> {
    const problem = postgresUrlProblem(url);
    if (problem !== undefined)
      throw new Error(
        `${product}: the PostgreSQL URL "${withoutPassword(url)}" ${problem}; write it as ${postgresUrlForm}`,
      );
    const where = whereOf(url);
    // Loaded only when PostgreSQL is the store: the file and memory stores start without it.
    const { default: driver } = await import('pg');
    // The schema is checked on a connection of its own, ended whatever happens: one the driver gave up on itself
    // (a password the server asks for and the URL lacks) would otherwise stay open and keep the process alive.
    const first = new driver.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    // A connection lost while no statement runs is an 'error' event; the next statement fails and says why.
    first.on('error', () => undefined);
    let connected = false;
    try {
      await first.connect();
      connected = true;
      await migrate(first);
    } catch (error) {
      const failed = startFailure(url, error as Error);
      throw !connected || failed instanceof DatabaseRefusedError || isUnavailable(error) ? failed : error;
    } finally {
      await first.end().catch(() => undefined);
    }
    const pool = new driver.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // A pooled, idle connection the server dropped: the pool discards it and makes a new one when next needed.
    // Without a listener, the 'error' event would end the process.
    const onWarning = options.onWarning ?? ((message: string) => process.emitWarning(message));
    pool.on('error', (error) =>
      onWarning(
        `${product}: a PostgreSQL connection was lost (${error.message}); a new one is made when needed`,
      ),
    );
    return new PostgresStore(pool, where, options);
  }

  /** One statement outside a transaction; a lost connection becomes `StoreUnavailableError`. */
  async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (error) {
      throw classified(error);
    }
  }

  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  async transaction<T>(work: (client: Client) => Promise<T>): Promise<T> {
    let client: Client;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw classified(error);
    }
    let broken: Error | undefined;
    // A checked-out client is this code's to watch: a connection lost between two statements is an 'error' event
    // (the pool listens only to idle clients), which unheard would end the process. The next statement fails too,
    // and the client is released as broken.
    const lost = (error: Error): void => {
      broken ??= error;
    };
    client.on('error', lost);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (isUnavailable(error)) broken = error as Error;
      else await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw classified(error);
    } finally {
      client.off('error', lost);
      client.release(broken);
    }
  }

  /**
   * A service request, stored: the planned fault due for it claimed first (when `claimFault`), else the rule of the
   * operation over the rows it needs, its change and its journal entry written in one commit. A get-or-create is one
   * statement (one round trip); an update or a rotation one transaction of two.
   */
  serve(call: ServiceCall, tenant: TenantMemory, claimFault: boolean): void {
    const operationId = call.operation.operationId as OperationId;
    const owner: Owner = call.owner;
    const faultFor = claimFault ? operationId : null;
    const journal = (decision: Decision<unknown>): JournalLine => journalLine(call.journal(decision));
    const served =
      operationId === 'getOrCreateUserGroup'
        ? this.#getOrCreate(owner, call.body as RequestBodies['getOrCreateUserGroup'], faultFor, journal)
        : operationId === 'updateUserGroup'
          ? this.#update(owner, call.body as RequestBodies['updateUserGroup'], faultFor, journal)
          : this.#rotate(owner, call.body as RequestBodies['rotateUserGroupToken'], faultFor, journal);
    served.then(
      (done) => {
        if (done.fault !== undefined) call.faulted(faultOf(done.fault));
        else {
          if (done.journaled) this.#counted(tenant.id).catch(() => undefined); // the next trim makes up for it
          call.stored(done.result, done.journaled);
        }
      },
      (error: Error) => call.storeFailed(error),
    );
  }

  async #getOrCreate(
    owner: Owner,
    request: RequestBodies['getOrCreateUserGroup'],
    claim: OperationId | null,
    journal: Journal,
  ): Promise<Served> {
    const ids = this.#ids;
    let faultFor = claim;
    for (;;) {
      // The answer to a new group is decided before the statement, so that its journal entry goes in with it.
      const teamId = await this.#teamIds.take();
      const decision = getOrCreate(...over([], owner, teamId), request, ids);
      const change = decision.ok ? decision.value.changes[0] : undefined;
      if (!decision.ok || change?.op !== 'putGroup') return { result: decision, journaled: false };
      const line = journal(decision.value);
      let row: CreateRow;
      try {
        const { rows } = await this.query<CreateRow>(createStatement, [
          ...groupValues(owner.tenant, change.group),
          faultFor,
          line.operationId,
          line.invalid,
          line.record,
        ]);
        row = rows[0] as CreateRow;
      } catch (error) {
        if (violates(error, 'groups_tenant_fkey'))
          return { result: failure(tenantRemoved()), journaled: false };
        // A team_id a seeded group took ahead of the sequence, or a token drawn twice: draw again.
        if (violates(error, 'groups_team_id_key') || violates(error, 'groups_token_key')) continue;
        // Refused (the database out of reach, say): the team id goes to the next create. Were the group stored
        // after all (a commit whose answer was lost), the unique team_id sends that create on to another id.
        this.#teamIds.giveBack(teamId);
        throw error;
      }
      if (row.made) return { result: decision, journaled: true };
      this.#teamIds.giveBack(teamId);
      if (row.claimed !== null) return { fault: row.claimed };
      // The group was there (made before this statement, or by a request committed during it): answered unchanged.
      const existing = row.existing ?? (await this.#groupById(owner, toText(request.user_group_id)));
      if (existing !== undefined)
        return { result: getOrCreate(...over([existing], owner), request, ids), journaled: false };
      faultFor = null; // removed again in between (a reset): no fault was due, so none is claimed twice
    }
  }

  async #update(
    owner: Owner,
    request: RequestBodies['updateUserGroup'],
    claim: OperationId | null,
    journal: Journal,
  ): Promise<Served> {
    const id = toText(request.user_group_id);
    const served = await this.#changeLocked(
      owner,
      claim,
      journal,
      { where: 'tenant = $1 AND environment = $3 AND provided_id = $4', values: [owner.environment, id] },
      (rows) => update(over(rows, owner)[1], request),
      (group) => {
        const [, , , , , name, mapping, properties] = groupValues(owner.tenant, group);
        return {
          sql: 'UPDATE groups SET name = $4, mapping = $5, properties = $6 WHERE tenant = $1 AND environment = $2 AND provided_id = $3',
          values: [owner.tenant, owner.environment, id, name, mapping, properties],
        };
      },
    );
    if (served.fault !== undefined || served.result.ok || served.result.error.code !== 'GROUP_NOT_FOUND')
      return served;
    // Not in the key's environment: the rule is asked again over the same id in the other one, which it names.
    const other = owner.environment === 'Customer' ? 'Testing' : 'Customer';
    const elsewhere = await this.#groupById({ tenant: owner.tenant, environment: other }, id);
    if (elsewhere === undefined) return served;
    return { result: update(over([elsewhere], owner)[1], request), journaled: false };
  }

  #rotate(
    owner: Owner,
    request: RequestBodies['rotateUserGroupToken'],
    claim: OperationId | null,
    journal: Journal,
  ): Promise<Served> {
    const ids = this.#ids;
    // Of concurrent rotations, the first to lock the row wins; the others find no row holding the old token once
    // it commits (READ COMMITTED re-checks the condition on the updated row).
    return this.#changeLocked(
      owner,
      claim,
      journal,
      { where: 'token = $3', values: [request.current_token] },
      (rows) => rotate(...over(rows, owner), request, ids),
      (group) => ({
        sql: 'UPDATE groups SET token = $2 WHERE token = $1',
        values: [request.current_token, group.token],
        retired: request.current_token,
      }),
    );
  }

  /**
   * An update or a rotation, in one transaction: the planned fault due claimed, else the group matching `lock`
   * locked, the rule applied to it (`decide`), and the changed group written (`write`) with the journal entry.
   */
  async #changeLocked(
    owner: Owner,
    claim: OperationId | null,
    journal: Journal,
    lock: { readonly where: string; readonly values: readonly unknown[] },
    decide: (rows: readonly GroupRow[]) => Result<Decision<unknown>>,
    write: (group: Group) => { readonly sql: string; readonly values: unknown[]; readonly retired?: string },
  ): Promise<Served> {
    const served = await this.transaction(async (client): Promise<Served> => {
      const { claimed, target } = await claimAndLock(client, lock.where, [
        owner.tenant,
        claim,
        ...lock.values,
      ]);
      if (claimed !== null) return { fault: claimed };
      const result = decide(target === null ? [] : [target]);
      const change = result.ok ? result.value.changes[0] : undefined;
      if (!result.ok || change?.op !== 'putGroup') return { result, journaled: false };
      const { sql, values, retired } = write(change.group);
      await changeAndJournal(client, sql, values, owner.tenant, journal(result.value), retired ?? null);
      return { result, journaled: true };
    });
    return this.#tenantChecked(owner, served);
  }

  /** A refusal because the tenant was removed through another replica meanwhile answers as such. */
  async #tenantChecked(owner: Owner, served: Served): Promise<Served> {
    if (served.fault !== undefined || served.result.ok || (await this.tenantExists(owner.tenant)))
      return served;
    return { result: failure(tenantRemoved()), journaled: false };
  }

  async #groupById(owner: Owner, storedId: string): Promise<GroupRow | undefined> {
    const { rows } = await this.query<GroupRow>(
      'SELECT * FROM groups WHERE tenant = $1 AND environment = $2 AND provided_id = $3',
      [owner.tenant, owner.environment, storedId],
    );
    return rows[0];
  }

  /** Stores a group as given; `GROUP_EXISTS` when its id, token or team_id is taken (the seed rule's answers). */
  async seed(tenant: string, seed: GroupSeed): Promise<Result<Group> | undefined> {
    for (;;) {
      const { rows } = await this.query<GroupRow>(
        'SELECT * FROM groups WHERE (tenant = $1 AND environment = $2 AND provided_id = $3) OR token = $4 OR team_id = $5',
        [tenant, seed.environment, toText(seed.user_group_id), seed.token ?? null, seed.team_id ?? null],
      );
      const next =
        seed.team_id === undefined
          ? Number((await this.query<{ id: string }>("SELECT nextval('team_ids') AS id")).rows[0]?.id)
          : 1;
      const world = partialWorld(rows, [tenant], next);
      const scope = world.tenants.get(tenant);
      if (scope === undefined) return undefined;
      const decision = seedGroup(world, scope, seed, this.#ids);
      if (!decision.ok) return decision;
      const group = decision.value.body;
      try {
        await this.transaction(async (client) => {
          await client.query(
            `INSERT INTO groups (${groupColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
            groupValues(tenant, group),
          );
          // Keep the sequence past a given team_id, so that later groups do not collide with it.
          await client.query("SELECT setval('team_ids', $1) WHERE $1 > (SELECT last_value FROM team_ids)", [
            group.team_id,
          ]);
        });
        this.#misses.clear();
        return ok(group);
      } catch (error) {
        if (violates(error, 'groups_tenant_fkey')) return undefined;
        if (violatesAny(error, ['groups_id_key', 'groups_token_key', 'groups_team_id_key'])) continue;
        throw error;
      }
    }
  }

  async groups(tenant: string, environment?: Environment): Promise<Group[]> {
    const { rows } = await this.query<GroupRow>(
      'SELECT * FROM groups WHERE tenant = $1 AND ($2::text IS NULL OR environment = $2) ORDER BY team_id',
      [tenant, environment ?? null],
    );
    return rows.map(groupOf);
  }

  /** The group of this id in a tenant's environment, if there is one. */
  async group(tenant: string, environment: Environment, providedId: string): Promise<Group | undefined> {
    const row = await this.#groupById({ tenant, environment }, toText(providedId));
    return row === undefined ? undefined : groupOf(row);
  }

  async groupByToken(token: string): Promise<{ tenant: string; group: Group } | undefined> {
    const { rows } = await this.query<GroupRow>('SELECT * FROM groups WHERE token = $1', [token]);
    const row = rows[0];
    return row === undefined ? undefined : { tenant: row.tenant, group: groupOf(row) };
  }

  async clearGroups(tenant: string, environment?: Environment): Promise<void> {
    await this.query('DELETE FROM groups WHERE tenant = $1 AND ($2::text IS NULL OR environment = $2)', [
      tenant,
      environment ?? null,
    ]);
  }

  async tenantExists(tenant: string): Promise<boolean> {
    const { rowCount } = await this.query('SELECT 1 FROM tenants WHERE id = $1', [tenant]);
    return rowCount === 1;
  }

  async putTenant(tenant: string, keys: TenantKeys): Promise<void> {
    await this.query('INSERT INTO tenants (id, customer_key, testing_key) VALUES ($1, $2, $3)', [
      tenant,
      keys.Customer,
      keys.Testing,
    ]);
    this.#misses.clear();
  }

  async deleteTenant(tenant: string): Promise<boolean> {
    this.#trimmed.delete(tenant);
    return this.transaction(async (client) => {
      const { rowCount } = await client.query('DELETE FROM tenants WHERE id = $1 AND id <> $2', [
        tenant,
        defaultTenantId,
      ]);
      await client.query('DELETE FROM journal WHERE tenant = $1', [tenant]);
      await client.query('DELETE FROM faults WHERE tenant = $1', [tenant]);
      return rowCount === 1;
    });
  }

  async tenants(): Promise<TenantRow[]> {
    const { rows } = await this.query<{
      id: string;
      customer_key: string | null;
      testing_key: string | null;
      groups: string;
    }>(
      'SELECT t.id, t.customer_key, t.testing_key, (SELECT count(*) FROM groups g WHERE g.tenant = t.id) AS groups FROM tenants t ORDER BY t.id',
    );
    return rows.map((row) => ({
      id: row.id,
      keys:
        row.customer_key === null || row.testing_key === null
          ? null
          : { Customer: row.customer_key, Testing: row.testing_key },
      groups: Number(row.groups),
    }));
  }

  /**
   * Whose key this is, for a key this replica does not know yet (a tenant made through another replica): one
   * statement of index look-ups (`keyStatement`); an unknown one is remembered for a while.
   */
  async lookUpKey(key: string): Promise<KeyLookup> {
    if (this.#misses.get(key)) return undefined;
    const { rows } = await this.query<{ tenant: string | null; customer: boolean; token: boolean }>(
      keyStatement,
      [key],
    );
    const row = rows[0];
    if (row?.tenant != null)
      return { tenant: row.tenant, environment: row.customer ? 'Customer' : 'Testing' };
    if (row?.token === true) return 'group-token';
    this.#misses.set(key, true);
    return undefined;
  }

  /** The newest journaled rotation that replaced `token` in the tenant (every replica's), by its index. */
  async rotatedAway(tenant: TenantMemory, token: string) {
    const { rows } = await this.query<{ at: Date; record: string }>(
      'SELECT at, record FROM journal WHERE retired_token = $2 AND tenant = $1 ORDER BY id DESC LIMIT 1',
      [tenant.id, token],
    );
    const row = rows[0];
    const found = row && rotatedAway(JSON.parse(row.record) as StoredRecord, row.at.getTime());
    if (found === undefined) return undefined;
    const [, retired] = found;
    return {
      retired,
      groupExists: (await this.group(tenant.id, retired.environment, retired.provided_id)) !== undefined,
    };
  }

  /** Journals a request whose entry did not go in with a change. */
  async record(tenant: string, record: JournalRecord): Promise<void> {
    const { operationId, invalid, record: text } = journalLine(record);
    await this.query('INSERT INTO journal (tenant, operation_id, invalid, record) VALUES ($1, $2, $3, $4)', [
      tenant,
      operationId,
      invalid,
      text,
    ]);
    await this.#counted(tenant);
  }

  /**
   * Counts an entry written (by `record`, or with the change it journals). The journal is trimmed every hundredth
   * entry of this replica: the table holds at most about capacity + 100 per tenant, and a listing shows the newest
   * `capacity`.
   */
  async #counted(tenant: string): Promise<void> {
    if (++this.#recorded % 100 === 0) await this.#trim('journal', tenant);
  }

  async requests(tenant: TenantMemory, query: JournalQuery): Promise<JournalEntry[]> {
    const { rows } = await this.query<{ id: string; at: Date; record: string }>(
      `SELECT id, at, record FROM (
         SELECT id, at, record, operation_id, invalid FROM journal WHERE tenant = $1 ORDER BY id DESC LIMIT $2
       ) newest
       WHERE ($3::text IS NULL OR operation_id = $3) AND (NOT $4 OR invalid) AND ($5::bigint IS NULL OR id > $5)
       ORDER BY id DESC LIMIT $6`,
      [
        tenant.id,
        this.#capacity,
        query.operationId ?? null,
        query.invalid === true || query.fault !== undefined,
        query.after ?? null,
        query.limit ?? this.#capacity,
      ],
    );
    // The mock judges requests only, so an invalid entry is the client's: a `fault` filter keeps that side's.
    const entries = rows
      .reverse()
      .map((row) => journalEntry(JSON.parse(row.record) as StoredRecord, Number(row.id), row.at.getTime()));
    const { fault } = query;
    return fault === undefined ? entries : entries.filter((entry) => isFaultOf(entry, fault));
  }

  async clearRequests(tenant: TenantMemory): Promise<void> {
    tenant.journal.clear();
    await this.query('DELETE FROM journal WHERE tenant = $1', [tenant.id]);
    this.#trimmed.delete(tenant.id);
  }

  /**
   * The entries dropped past the limit: those kept but beyond the newest `capacity` (awaiting a trim), and those
   * this replica's trims deleted since it last emptied the journal (a trim by another replica is counted there).
   */
  async droppedRequests(tenant: TenantMemory): Promise<number> {
    const { rows } = await this.query<{ kept: string }>(
      'SELECT count(*) AS kept FROM journal WHERE tenant = $1',
      [tenant.id],
    );
    const beyond = Math.max(0, Number(rows[0]?.kept ?? 0) - this.#capacity);
    return beyond + (this.#trimmed.get(tenant.id) ?? 0);
  }

  async addFault(tenant: TenantMemory, spec: FaultSpec): Promise<Fault> {
    const { rows } = await this.query<FaultRow>(
      'INSERT INTO faults (tenant, operation_id, status, delay_ms, action, remaining) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
      [
        tenant.id,
        spec.operationId ?? null,
        spec.status ?? null,
        spec.delay_ms ?? 0,
        spec.action ?? null,
        spec.times ?? 1,
      ],
    );
    await this.#trim('faults', tenant.id);
    return faultOf(rows[0] as FaultRow);
  }

  async faults(tenant: TenantMemory): Promise<Fault[]> {
    const { rows } = await this.query<FaultRow>('SELECT * FROM faults WHERE tenant = $1 ORDER BY id', [
      tenant.id,
    ]);
    return rows.map(faultOf);
  }

  async clearFaults(tenant: TenantMemory): Promise<void> {
    await this.query('DELETE FROM faults WHERE tenant = $1', [tenant.id]);
  }

  async #trim(table: 'journal' | 'faults', tenant: string): Promise<void> {
    const trimmed = await this.query(
      `DELETE FROM ${table} WHERE tenant = $1 AND id < (SELECT id FROM ${table} WHERE tenant = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
      [tenant, this.#capacity - 1],
    );
    if (table === 'journal' && (trimmed.rowCount ?? 0) > 0)
      this.#trimmed.set(tenant, (this.#trimmed.get(tenant) ?? 0) + (trimmed.rowCount ?? 0));
  }

  async health(): Promise<{ status: 'ready' | 'degraded'; database: 'up' | 'down' }> {
    const up = await this.#reachable();
    return { status: up ? 'ready' : 'degraded', database: up ? 'up' : 'down' };
  }

  /** Whether the database answers now. */
  async #reachable(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** How a service request's journal entry is made, for the statement that writes it with the change. */
type Journal = (decision: Decision<unknown>) => JournalLine;

/** A journal record as the journal table holds it: the headers with their secrets hidden (the table outlives it). */
const journalLine = (record: JournalRecord): JournalLine => ({
  operationId: record.operationId,
  invalid: record.diagnostics.length > 0,
  record: JSON.stringify(storedRecord(record)),
});

const faultOf = (row: FaultRow): Fault => ({
  id: Number(row.id),
  operationId: row.operation_id as Fault['operationId'],
  status: row.status as Fault['status'],
  delay_ms: row.delay_ms,
  action: row.action as Fault['action'],
  remaining: row.remaining,
});

/** The world a rule runs on for one request (the rows read), and the caller in it. */
function over(rows: readonly GroupRow[], owner: Owner, nextTeamId?: number): [World, Caller] {
  const world = partialWorld(rows, [owner.tenant], nextTeamId);
  return [world, { tenant: world.tenants.get(owner.tenant) as Tenant, environment: owner.environment }];
}

function violates(error: unknown, constraint: string): boolean {
  return (error as { constraint?: string }).constraint === constraint;
}

const violatesAny = (error: unknown, constraints: readonly string[]): boolean =>
  constraints.some((c) => violates(error, c));
