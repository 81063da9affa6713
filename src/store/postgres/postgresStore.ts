import type pg from 'pg';
import type { IdSource } from '../../domain/ids.js';
import {
  defaultTenantId,
  type Environment,
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
import { postgresUrlForm, postgresUrlProblem, withoutPassword } from './postgresUrl.js';
import { type GroupRow, groupColumns, groupOf, groupValues, partialWorld, toText } from './rows.js';
import { migrate } from './schema.js';
import { DatabaseRefusedError, startFailure, whereOf } from './startErrors.js';
import {
  type CreateRow,
  changeAndJournal,
  claimAndLock,
  createStatement,
  type Served,
  type Serving,
} from './statements.js';
import { TeamIds } from './teamIds.js';
import { classified, isUnavailable } from './unavailable.js';

/** Who asks: the tenant and environment of the API key. */
export interface Owner {
  readonly tenant: string;
  readonly environment: Environment;
}

/**
 * What a key is to the database: a tenant's key, a group token sent in its place (a group's current token, or one
 * a rotation the journal still lists replaced), or unknown.
 */
export type KeyLookup = Owner | 'group-token' | undefined;

export interface TenantRow {
  readonly id: string;
  readonly keys: TenantKeys | null;
  readonly groups: number;
}

export interface PostgresStoreOptions {
  /** Connections of this replica (default 10). */
  readonly poolSize?: number;
  /** Trouble the pool recovers from by itself (a pooled connection that died). */
  readonly onWarning?: (message: string) => void;
}

type Client = pg.PoolClient;

/**
 * Tenants, groups, tokens and team ids in PostgreSQL, shared by every replica pointed at the database. Each
 * operation is one transaction (or one statement); the rules of src/domain decide the answer over the rows read,
 * and the constraints decide the races: the primary key (tenant, environment, provided_id) with `INSERT … ON
 * CONFLICT` makes one group of concurrent get-or-creates, a rotation updates `WHERE token = old`, `team_id` comes
 * from a sequence and is unique. A success is returned only after the commit.
 */
export class PostgresStore {
  readonly #teamIds = new TeamIds(this);

  private constructor(
    readonly pool: pg.Pool,
    /** `host:port`, for messages. */
    readonly where: string,
  ) {}

  /** Connects, migrates the schema (under an advisory lock), and returns the store. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
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
    return new PostgresStore(pool, where);
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
   * A service request, stored: the planned fault due for it claimed first (when `serving.faultFor` is set), else
   * the rule of the operation over the rows it needs, its change and its journal entry written in one commit. A
   * get-or-create is one statement (one round trip); an update or a rotation one transaction of four.
   */
  serve(
    operationId: OperationId,
    owner: Owner,
    body: unknown,
    ids: IdSource,
    serving: Serving,
  ): Promise<Served> {
    switch (operationId) {
      case 'getOrCreateUserGroup':
        return this.#getOrCreate(owner, body as RequestBodies['getOrCreateUserGroup'], ids, serving);
      case 'updateUserGroup':
        return this.#update(owner, body as RequestBodies['updateUserGroup'], serving);
      case 'rotateUserGroupToken':
        return this.#rotate(owner, body as RequestBodies['rotateUserGroupToken'], ids, serving);
    }
  }

  async #getOrCreate(
    owner: Owner,
    request: RequestBodies['getOrCreateUserGroup'],
    ids: IdSource,
    serving: Serving,
  ): Promise<Served> {
    let faultFor = serving.faultFor ?? null;
    for (;;) {
      // The answer to a new group is decided before the statement, so that its journal entry goes in with it.
      const teamId = await this.#teamIds.take();
      const decision = getOrCreate(...over([], owner, teamId), request, ids);
      const change = decision.ok ? decision.value.changes[0] : undefined;
      if (!decision.ok || change?.op !== 'putGroup') return { result: decision, journaled: false };
      const line = serving.journal(decision.value);
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

  async #update(owner: Owner, request: RequestBodies['updateUserGroup'], serving: Serving): Promise<Served> {
    const id = toText(request.user_group_id);
    const served = await this.#changeLocked(
      owner,
      serving,
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
    ids: IdSource,
    serving: Serving,
  ): Promise<Served> {
    // Of concurrent rotations, the first to lock the row wins; the others find no row holding the old token once
    // it commits (READ COMMITTED re-checks the condition on the updated row).
    return this.#changeLocked(
      owner,
      serving,
      { where: 'token = $3', values: [request.current_token] },
      (rows) => rotate(...over(rows, owner), request, ids),
      (group) => ({
        sql: 'UPDATE groups SET token = $2 WHERE token = $1',
        values: [request.current_token, group.token],
      }),
    );
  }

  /**
   * An update or a rotation, in one transaction: the planned fault due claimed, else the group matching `lock`
   * locked, the rule applied to it (`decide`), and the changed group written (`write`) with the journal entry.
   */
  async #changeLocked(
    owner: Owner,
    serving: Serving,
    lock: { readonly where: string; readonly values: readonly unknown[] },
    decide: (rows: readonly GroupRow[]) => Result<Decision<unknown>>,
    write: (group: Group) => { readonly sql: string; readonly values: unknown[] },
  ): Promise<Served> {
    const served = await this.transaction(async (client): Promise<Served> => {
      const { claimed, target } = await claimAndLock(client, lock.where, [
        owner.tenant,
        serving.faultFor ?? null,
        ...lock.values,
      ]);
      if (claimed !== null) return { fault: claimed };
      const result = decide(target === null ? [] : [target]);
      const change = result.ok ? result.value.changes[0] : undefined;
      if (!result.ok || change?.op !== 'putGroup') return { result, journaled: false };
      const { sql, values } = write(change.group);
      await changeAndJournal(client, sql, values, owner.tenant, serving.journal(result.value));
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
  async seed(tenant: string, seed: GroupSeed, ids: IdSource): Promise<Result<Group> | undefined> {
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
      const decision = seedGroup(world, scope, seed, ids);
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
    return partialGroups(rows);
  }

  /** The group of this id in a tenant's environment, if there is one. */
  async group(tenant: string, environment: Environment, providedId: string): Promise<Group | undefined> {
    const row = await this.#groupById({ tenant, environment }, toText(providedId));
    return row === undefined ? undefined : groupOf(row);
  }

  async groupByToken(token: string): Promise<{ tenant: string; group: Group } | undefined> {
    const { rows } = await this.query<GroupRow>('SELECT * FROM groups WHERE token = $1', [token]);
    const row = rows[0];
    return row === undefined ? undefined : { tenant: row.tenant, group: partialGroups([row])[0] as Group };
  }

  /** Removes a tenant's groups, of one environment when one is given. */
  async clearTenant(tenant: string, environment?: Environment): Promise<void> {
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
  }

  /** Removes a tenant with its groups; false when there was none. */
  async deleteTenant(tenant: string): Promise<boolean> {
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

  /** Whose key this is, for a key this replica does not know yet (a tenant made through another replica). */
  async lookUpKey(key: string): Promise<KeyLookup> {
    const { rows } = await this.query<{ id: string; customer: boolean }>(
      'SELECT id, customer_key = $1 AS customer FROM tenants WHERE customer_key = $1 OR testing_key = $1',
      [key],
    );
    const row = rows[0];
    if (row !== undefined) return { tenant: row.id, environment: row.customer ? 'Customer' : 'Testing' };
    const token = await this.query('SELECT 1 FROM groups WHERE token = $1', [key]);
    if (token.rowCount === 1) return 'group-token';
    // A token a rotation replaced, while the journal keeps that rotation (the CASE parses only an answered one's
    // request, which is JSON).
    const retired = await this.query(
      `SELECT 1 FROM journal WHERE operation_id = 'rotateUserGroupToken' AND position($1 IN record) > 0
         AND CASE WHEN record::jsonb->>'status' = '200'
           THEN (record::jsonb->>'requestText')::jsonb->>'current_token' = $1 ELSE false END
       LIMIT 1`,
      [key],
    );
    return retired.rowCount === 1 ? 'group-token' : undefined;
  }

  /** Whether the database answers now. */
  async reachable(): Promise<boolean> {
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

const partialGroups = (rows: readonly GroupRow[]): Group[] => rows.map(groupOf);

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
