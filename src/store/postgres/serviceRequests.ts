import type { IdSource } from '../../domain/ids.js';
import type { KeyOwner, Tenant, World } from '../../domain/model.js';
import { type Caller, getOrCreate, rotate, update } from '../../domain/userGroups.js';
import { tenantRemoved } from '../../errors.js';
import { failure } from '../../result.js';
import type { OperationId } from '../../spec/operations.js';
import type { RequestBodies } from '../../spec/types.js';
import { StoreUnavailableError } from '../store.js';
import { type Asked, type Changing, changeBatch, type Served } from './changeBatch.js';
import { type Database, oneBatchAtATime, violates } from './database.js';
import { ReadsAndEntries } from './readsAndEntries.js';
import { type GroupRow, groupColumns, groupRow, partialWorld, rowValues, toText } from './rows.js';
import {
  batchJson,
  type CreateBatchRow,
  type CreateItem,
  type CreateRow,
  changeAndJournal,
  claimAndLock,
  createBatchStatement,
  createStatement,
  type JournalLine,
  type ReadItem,
  type ReadRow,
} from './statements.js';
import { TeamIds } from './teamIds.js';

/**
 * How long, at most, a batch of get-or-creates waits for as many as the batch before answered, while most
 * get-or-creates make their group (decision 17): a commit and its WAL flush then serve the clients of both halves of
 * the batch that would otherwise alternate. Not while most find theirs (a workload of reads with some creates, whose
 * clients come back as reads): a create would wait for nothing.
 */
const createComebackMs = 10;

/** A get-or-create to send: the group's row ($1 … $8 of `createStatement`), the fault to claim, its entry. */
interface Creating {
  readonly row: GroupRow;
  readonly claim: OperationId | null;
  readonly line: JournalLine;
}

/**
 * The service operations on PostgreSQL: the planned fault due claimed first (when asked), else the rule of the
 * operation over the rows it needs, its change and its journal entry written in one commit. A get-or-create is one
 * statement (one round trip), shared with the get-or-creates asked meanwhile (`createBatchStatement`: one commit
 * and one WAL flush for them all); an update or a rotation one transaction of two.
 */
export class ServiceRequests {
  readonly #teamIds: TeamIds;

  constructor(
    private readonly db: Database,
    private readonly ids: IdSource,
    /** Where reads go: with the journal entries of requests answered without a change, when the store shares them. */
    private readonly batches = new ReadsAndEntries(db),
  ) {
    this.#teamIds = new TeamIds(db);
  }

  serve(operationId: OperationId, body: unknown, asked: Asked): Promise<Served> {
    if (operationId === 'getOrCreateUserGroup')
      return this.#getOrCreate(asked, body as RequestBodies['getOrCreateUserGroup']);
    if (operationId === 'updateUserGroup')
      return this.#update(asked, body as RequestBodies['updateUserGroup']);
    return this.#rotate(asked, body as RequestBodies['rotateUserGroupToken']);
  }

  /**
   * Of the latest get-or-creates (an average weighted to the newest, about the last 20), the share that found their
   * group stored. While it is half or more, a get-or-create first reads its group (`readBatchStatement`, shared with
   * the others asked meanwhile and the journal entries of the reads answered before) and answers a stored one from
   * it: no token drawn, no answer and journal entry of a new group made to be thrown away, no insert tried.
   * Otherwise, and when the group is not there or a fault may be due, it goes on to the create statement, which
   * decides. Either way the database's rows decide the answer. While it is under half, a batch of creates waits for
   * the clients the batch before answered (`createComebackMs`).
   */
  #storedShare = 0;

  #found(stored: boolean): void {
    this.#storedShare += ((stored ? 1 : 0) - this.#storedShare) / 20;
  }

  async #getOrCreate(asked: Asked, request: RequestBodies['getOrCreateUserGroup']): Promise<Served> {
    const { owner, journal } = asked;
    let faultFor = asked.claim;
    if (this.#storedShare >= 0.5) {
      const read = await this.#read({
        tenant: owner.tenant,
        environment: owner.environment,
        provided_id: toText(request.user_group_id),
        claim: faultFor,
      });
      if (!read.due && read.existing !== null) {
        this.#found(true);
        return { result: getOrCreate(...over([read.existing], owner), request, this.ids), journaled: false };
      }
    }
    for (;;) {
      // The answer to a new group is decided before the statement, so that its journal entry goes in with it.
      const teamId = await this.#teamIds.take();
      const decision = getOrCreate(...over([], owner, teamId), request, this.ids);
      const change = decision.ok ? decision.value.changes[0] : undefined;
      if (!decision.ok || change?.op !== 'putGroup') return { result: decision, journaled: false };
      const line = journal(decision.value);
      let row: CreateRow;
      try {
        row = await this.#create({ row: groupRow(owner.tenant, change.group), claim: faultFor, line });
      } catch (error) {
        if (violates(error, 'groups_tenant_fkey'))
          return { result: failure(tenantRemoved()), journaled: false };
        // A team_id a seeded group took ahead of the sequence, or a token drawn twice: draw again.
        if (violates(error, 'groups_team_id_key', 'groups_token_key')) continue;
        // Refused (the database out of reach, say): the team id goes to the next create. Were the group stored
        // after all (a commit whose answer was lost), the unique team_id sends that create on to another id.
        this.#teamIds.giveBack(teamId);
        throw error;
      }
      this.#found(!row.made);
      if (row.made) return { result: decision, journaled: true };
      this.#teamIds.giveBack(teamId);
      if (row.claimed !== null) return { fault: row.claimed };
      // The group was there (made before this statement, or by a request committed during it): answered unchanged.
      const existing = row.existing ?? (await groupById(this.db, owner, toText(request.user_group_id)));
      if (existing !== undefined)
        return { result: getOrCreate(...over([existing], owner), request, this.ids), journaled: false };
      faultFor = null; // removed again in between (a reset): no fault was due, so none is claimed twice
    }
  }

  /**
   * The get-or-creates asked while a batch is in flight go in the next, one statement for them all: its commit (and
   * WAL flush) answers each, and a failure of the database fails each. An item for which a fault may be due, and
   * every item of a batch one of whose rows the constraints refused (a token or team_id taken, the tenant removed),
   * is sent alone, so that it claims its fault or meets its own refusal and the others are stored all the same.
   * While most get-or-creates make their group, a batch waits for the clients the batch before answered to come
   * back (`createComebackMs`).
   */
  readonly #create = oneBatchAtATime(
    async (items: readonly Creating[]): Promise<(CreateRow | Error)[]> => {
      if (items.length === 1) return [await this.#createAlone(items[0] as Creating)];
      const alone = (item: Creating) => this.#createAlone(item).catch((error: Error) => error);
      let rows: CreateBatchRow[];
      try {
        ({ rows } = await this.db.query<CreateBatchRow>(createBatchStatement, [
          batchJson(items.map(createItem)),
        ]));
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        return Promise.all(items.map(alone));
      }
      return Promise.all(
        rows.map((row, i) => (row.due ? alone(items[i] as Creating) : { claimed: null, ...row })),
      );
    },
    0,
    () => (this.#storedShare < 0.5 ? createComebackMs : 0),
  );

  /**
   * The group of a get-or-create and whether a fault may be due for it, read in one statement with the others asked
   * at once and the journal entries written meanwhile (`ReadsAndEntries`).
   */
  #read(item: Omit<ReadItem, 'n'>): Promise<ReadRow> {
    return this.batches.read(item);
  }

  async #createAlone({ row, claim, line }: Creating): Promise<CreateRow> {
    const { rows } = await this.db.query<CreateRow>(createStatement, [
      ...rowValues(row),
      claim,
      line.operationId,
      line.invalid,
      line.record,
    ]);
    return rows[0] as CreateRow;
  }

  #update(asked: Asked, request: RequestBodies['updateUserGroup']): Promise<Served> {
    // The id's group in either environment: the rule names the other one when the group is there.
    const id = toText(request.user_group_id);
    return this.#changed({
      asked,
      names: { provided_id: id, token: null },
      decide: (rows) => update(over(rows, asked.owner)[1], request),
      retired: null,
    });
  }

  #rotate(asked: Asked, request: RequestBodies['rotateUserGroupToken']): Promise<Served> {
    // Of concurrent rotations, the first to lock the row wins; the others find no row holding the old token once
    // it commits (READ COMMITTED re-checks the condition on the updated row; a batch reads the row as it is now).
    return this.#changed({
      asked,
      names: { provided_id: null, token: request.current_token },
      decide: (rows) => rotate(...over(rows, asked.owner), request, this.ids),
      retired: request.current_token,
    });
  }

  /** An update or a rotation, batched with those asked meanwhile; refused for a tenant removed meanwhile as such. */
  async #changed(item: Changing): Promise<Served> {
    const served = await this.#change(item);
    // A refusal because the tenant was removed through another replica meanwhile answers as such.
    if (
      served.fault !== undefined ||
      served.result.ok ||
      (await tenantExists(this.db, item.asked.owner.tenant))
    )
      return served;
    return { result: failure(tenantRemoved()), journaled: false };
  }

  /**
   * The updates and rotations asked while a batch is in flight go in the next, one transaction for them all
   * (`changeBatch`): one commit and one WAL flush answer each. An item for which a fault may be due is sent alone
   * after the batch's commit, so that it claims its fault; a batch the database refuses (a token drawn twice, a
   * deadlock) is rolled back whole and each of its items sent alone.
   */
  readonly #change = oneBatchAtATime(async (items: readonly Changing[]): Promise<(Served | Error)[]> => {
    if (items.length === 1) return [await this.#changeAlone(items[0] as Changing)];
    const alone = (item: Changing) => this.#changeAlone(item).catch((error: Error) => error);
    let served: (Served | undefined)[];
    try {
      served = await this.db.transaction((client) => changeBatch(client, items));
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      return Promise.all(items.map(alone));
    }
    return Promise.all(items.map((item, i) => served[i] ?? alone(item)));
  });

  /**
   * An update or a rotation alone, in one transaction: the planned fault due claimed, else the groups it names
   * locked, the rule applied to them, and the changed group written with the journal entry (naming the token a
   * rotation `retired`).
   */
  #changeAlone({ asked, names, decide, retired }: Changing): Promise<Served> {
    const { owner, claim, journal } = asked;
    const lock =
      names.provided_id !== null
        ? {
            where: "tenant = $1 AND environment IN ('Customer', 'Testing') AND provided_id = $3",
            value: names.provided_id,
          }
        : { where: 'token = $3', value: names.token };
    return this.db.transaction(async (client): Promise<Served> => {
      const { claimed, targets } = await claimAndLock(client, lock.where, [owner.tenant, claim, lock.value]);
      if (claimed !== null) return { fault: claimed };
      const result = decide(targets);
      const change = result.ok ? result.value.changes[0] : undefined;
      if (!result.ok || change?.op !== 'putGroup') return { result, journaled: false };
      await changeAndJournal(client, owner.tenant, change.group, journal(result.value), retired);
      return { result, journaled: true };
    });
  }
}

export async function groupById(
  db: Database,
  owner: KeyOwner,
  storedId: string,
): Promise<GroupRow | undefined> {
  const { rows } = await db.query<GroupRow>(
    `SELECT ${groupColumns} FROM groups WHERE tenant = $1 AND environment = $2 AND provided_id = $3`,
    [owner.tenant, owner.environment, storedId],
  );
  return rows[0];
}

export async function tenantExists(db: Database, tenant: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM tenants WHERE id = $1', [tenant]);
  return rowCount === 1;
}

function createItem({ row, claim, line }: Creating, n: number): CreateItem {
  return { n, ...row, claim, ...line };
}

/** The world a rule runs on for one request (the rows read), and the caller in it. */
function over(rows: readonly GroupRow[], owner: KeyOwner, nextTeamId?: number): [World, Caller] {
  const world = partialWorld(rows, [owner.tenant], nextTeamId);
  return [world, { tenant: world.tenants.get(owner.tenant) as Tenant, environment: owner.environment }];
}
