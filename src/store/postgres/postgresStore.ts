import { LRUCache } from 'lru-cache';
import {
  defaultTenantId,
  type Environment,
  type Group,
  type Tenant,
  type TenantKeys,
} from '../../domain/model.js';
import { type GroupSeed, seedGroup } from '../../domain/seed.js';
import { ok, type Result } from '../../result.js';
import type { OperationId } from '../../spec/operations.js';
import { type Fault, type FaultSpec, plannedFault } from '../faults.js';
import type { JournalEntry, JournalQuery, JournalRecord } from '../journal.js';
import type { KeyLookup, ServiceCall, Store, TenantRow, TenantState } from '../store.js';
import type { OpenedStoreOptions } from '../storeOptions.js';
import { Database, oneBatchAtATime, violates } from './database.js';
import { JournalTable } from './journalTable.js';
import { ReadsAndEntries } from './readsAndEntries.js';
import { type GroupRow, groupColumns, groupOf, groupValues, partialWorld, toText } from './rows.js';
import { groupById, ServiceRequests, tenantExists } from './serviceRequests.js';
import { faultColumns, journalLine, keysStatement } from './statements.js';

/** The advisory lock every tenant's creation takes (an arbitrary constant, apart from the schema's). */
const tenantLock = 7_346_221_018;

/**
 * How long a key look-up waits for others to share its statement: a wrong key's refusal (or a tenant key's first
 * use through this replica) takes that much longer, and a flood of distinct wrong keys costs at most one look-up
 * statement per wait, whatever its rate.
 */
const lookUpGatherMs = 5;

/**
 * Tenants, groups, tokens and team ids, and every tenant's journal and planned faults, in PostgreSQL, shared by
 * every replica pointed at the database. Each operation is one transaction (or one statement); the rules of
 * src/domain decide the answer over the rows read, and the constraints decide the races: the primary key (tenant,
 * environment, provided_id) with `INSERT … ON CONFLICT` makes one group of concurrent get-or-creates, a rotation
 * locks the row `WHERE token = old`, `team_id` comes from a sequence and is unique. A success is returned only after
 * the commit. The journal and faults are bounded as the in-memory ones are: the newest `journalLimit` per tenant.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres';
  /**
   * The keys the database did not know, for 5 s: a client sending a wrong key on every request costs one look-up
   * per key and 5 s, and a flood of distinct wrong keys at most 10,000 remembered. Emptied when this replica makes a
   * tenant or seeds a group; a key made through another replica is random, so nobody sent it before.
   */
  readonly #misses = new LRUCache<string, true>({ max: 10_000, ttl: 5_000 });
  readonly #requests: ServiceRequests;
  readonly #journal: JournalTable;

  private constructor(
    private readonly db: Database,
    private readonly options: OpenedStoreOptions,
  ) {
    // A read's batch carries the journal entries of the reads answered before it: one statement for both.
    const batches = new ReadsAndEntries(db);
    this.#requests = new ServiceRequests(db, options.ids, batches);
    this.#journal = new JournalTable(db, options.journalLimit, batches);
  }

  static async open(url: string, options: OpenedStoreOptions): Promise<PostgresStore> {
    return new PostgresStore(await Database.open(url, options), options);
  }

  serve(call: ServiceCall, tenant: TenantState, claimFault: boolean): void {
    const operationId = call.operation.operationId as OperationId;
    this.#requests
      .serve(operationId, call.body, {
        owner: call.owner,
        claim: claimFault ? operationId : null,
        journal: (decision) => journalLine(call.journal(decision)),
      })
      .then(
        (done) => {
          if (done.fault !== undefined) call.faulted(done.fault);
          else {
            // A failed count is made up for by the next trim.
            if (done.journaled) this.#journal.counted(tenant.id).catch(() => undefined);
            call.stored(done.result, done.journaled);
          }
        },
        (error: Error) => call.storeFailed(error),
      );
  }

  /** Stores a group as given; `GROUP_EXISTS` when its id, token or team_id is taken (the seed rule's answers). */
  async seed(tenant: string, seed: GroupSeed): Promise<Result<Group> | undefined> {
    for (;;) {
      const { rows } = await this.db.query<GroupRow>(
        `SELECT ${groupColumns} FROM groups WHERE (tenant = $1 AND environment = $2 AND provided_id = $3) OR token = $4 OR team_id = $5`,
        [tenant, seed.environment, toText(seed.user_group_id), seed.token ?? null, seed.team_id ?? null],
      );
      const next =
        seed.team_id === undefined
          ? Number((await this.db.query<{ id: string }>("SELECT nextval('team_ids') AS id")).rows[0]?.id)
          : 1;
      const world = partialWorld(rows, [tenant], next);
      const decision = seedGroup(world, world.tenants.get(tenant) as Tenant, seed, this.options.ids);
      if (!decision.ok) return decision;
      const group = decision.value.body;
      try {
        await this.db.transaction(async (client) => {
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
        if (violates(error, 'groups_id_key', 'groups_token_key', 'groups_team_id_key')) continue;
        throw error;
      }
    }
  }

  async groups(tenant: string, environment?: Environment): Promise<Group[]> {
    const { rows } = await this.db.query<GroupRow>(
      `SELECT ${groupColumns} FROM groups WHERE tenant = $1 AND ($2::text IS NULL OR environment = $2) ORDER BY team_id`,
      [tenant, environment ?? null],
    );
    return rows.map(groupOf);
  }

  async group(tenant: string, environment: Environment, providedId: string): Promise<Group | undefined> {
    const row = await groupById(this.db, { tenant, environment }, toText(providedId));
    return row === undefined ? undefined : groupOf(row);
  }

  async groupByToken(token: string): Promise<{ tenant: string; group: Group } | undefined> {
    const { rows } = await this.db.query<GroupRow>(`SELECT ${groupColumns} FROM groups WHERE token = $1`, [
      token,
    ]);
    const row = rows[0];
    return row === undefined ? undefined : { tenant: row.tenant, group: groupOf(row) };
  }

  async clearGroups(tenant: string, environment?: Environment): Promise<void> {
    const text = 'DELETE FROM groups WHERE tenant = $1 AND ($2::text IS NULL OR environment = $2)';
    await this.db.query(text, [tenant, environment ?? null]);
  }

  tenantExists(tenant: string): Promise<boolean> {
    return tenantExists(this.db, tenant);
  }

  /**
   * The unique constraints hold each key column apart; that a key is no tenant's in either column is checked under
   * an advisory lock that every tenant's creation takes, so two replicas cannot both pass the check (a tenant is
   * made now and then: the lock costs nothing that matters).
   */
  async putTenant(tenant: string, keys: TenantKeys): Promise<boolean> {
    const stored = await this.db.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [tenantLock]);
      const { rowCount } = await client.query(
        `INSERT INTO tenants (id, customer_key, testing_key) SELECT $1, $2, $3
         WHERE NOT EXISTS (SELECT FROM tenants WHERE id = $1 OR customer_key IN ($2, $3) OR testing_key IN ($2, $3))`,
        [tenant, keys.Customer, keys.Testing],
      );
      return rowCount === 1;
    });
    if (stored) this.#misses.clear();
    return stored;
  }

  async deleteTenant(tenant: string): Promise<boolean> {
    this.#journal.forget(tenant);
    return this.db.transaction(async (client) => {
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
    const { rows } = await this.db.query<TenantRow>(
      `SELECT id, CASE WHEN customer_key IS NULL THEN NULL
          ELSE json_build_object('Customer', customer_key, 'Testing', testing_key) END AS keys,
        (SELECT count(*)::integer FROM groups g WHERE g.tenant = t.id) AS groups
       FROM tenants t ORDER BY id`,
    );
    return rows;
  }

  /**
   * For a key this replica does not know yet (a tenant made through another replica): index look-ups, for the keys
   * asked at once in one statement (`keysStatement`); an unknown one is remembered for a while.
   */
  async lookUpKey(key: string): Promise<KeyLookup> {
    if (this.#misses.get(key)) return undefined;
    const found = await this.#lookUp(key);
    if (found === undefined) this.#misses.set(key, true);
    return found;
  }

  readonly #lookUp = oneBatchAtATime(async (keys: readonly string[]) => {
    const { rows } = await this.db.query<{ found: KeyLookup | null }>(keysStatement, [keys]);
    return rows.map((row) => row.found ?? undefined);
  }, lookUpGatherMs);

  async rotatedAway(tenant: TenantState, token: string) {
    const retired = await this.#journal.rotatedAway(tenant.id, token);
    if (retired === undefined) return undefined;
    return {
      retired,
      groupExists: (await this.group(tenant.id, retired.environment, retired.provided_id)) !== undefined,
    };
  }

  record(tenant: string, record: JournalRecord, written: (error?: Error) => void): void {
    this.#journal.record(tenant, record).then(() => written(), written);
  }

  requests(tenant: TenantState, query: JournalQuery): Promise<JournalEntry[]> {
    return this.#journal.list(tenant.id, query);
  }

  async clearRequests(tenant: TenantState): Promise<void> {
    tenant.journal.clear();
    await this.#journal.clear(tenant.id);
  }

  droppedRequests(tenant: TenantState): Promise<number> {
    return this.#journal.dropped(tenant.id);
  }

  async addFault(tenant: TenantState, spec: FaultSpec): Promise<Fault> {
    const fault = plannedFault(spec);
    const { rows } = await this.db.query<Fault>(
      `INSERT INTO faults (tenant, operation_id, status, delay_ms, action, remaining) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${faultColumns}`,
      [tenant.id, fault.operationId, fault.status, fault.delay_ms, fault.action, fault.remaining],
    );
    await this.db.trim('faults', tenant.id, this.options.journalLimit);
    return rows[0] as Fault;
  }

  async faults(tenant: TenantState): Promise<Fault[]> {
    const { rows } = await this.db.query<Fault>(
      `SELECT ${faultColumns} FROM faults WHERE tenant = $1 ORDER BY id`,
      [tenant.id],
    );
    return rows;
  }

  async clearFaults(tenant: TenantState): Promise<void> {
    await this.db.query('DELETE FROM faults WHERE tenant = $1', [tenant.id]);
  }

  async health(): Promise<{ status: 'ready' | 'degraded'; database: 'up' | 'down' }> {
    const up = await this.db.query('SELECT 1').then(
      () => true,
      () => false,
    );
    return { status: up ? 'ready' : 'degraded', database: up ? 'up' : 'down' };
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
