import type { Group } from '../../domain/model.js';
import type { Fault } from '../faults.js';
import { type JournalRecord, storedRecord } from '../journal.js';
import type { Client } from './database.js';
import { type GroupRow, groupColumns, groupValues } from './rows.js';

/** A row of `faults` as a `Fault` (the id, a bigint, as a number: exact up to 2^53). */
export const faultColumns =
  'id::float8 AS id, operation_id AS "operationId", status, delay_ms, action, remaining';

/**
 * The common table expressions that claim the first fault of tenant `$tenant` due for operation `$operation`
 * (none when `$operation` is NULL): the row is locked while it is counted, so of two replicas taking at once each
 * takes one use, never the same one; a fault is removed with its last use. `claimed` holds the fault taken, if
 * any; `next` is not empty when one was due.
 */
const claimFault = (tenant: string, operation: string): string => `
  next AS (
    SELECT id, remaining FROM faults
    WHERE ${operation}::text IS NOT NULL AND tenant = ${tenant} AND (operation_id IS NULL OR operation_id = ${operation})
    ORDER BY id LIMIT 1 FOR UPDATE
  ),
  gone AS (DELETE FROM faults f USING next WHERE f.id = next.id AND next.remaining <= 1 RETURNING f.*),
  kept AS (
    UPDATE faults f SET remaining = f.remaining - 1 FROM next WHERE f.id = next.id AND next.remaining > 1
    RETURNING f.*
  ),
  claimed AS (SELECT ${faultColumns} FROM gone UNION ALL SELECT ${faultColumns} FROM kept)`;

/** A journal record as the journal table holds it: the headers with their secrets hidden (the table outlives it). */
export const journalLine = (record: JournalRecord) => ({
  operationId: record.operationId,
  invalid: record.diagnostics.length > 0,
  record: JSON.stringify(storedRecord(record)),
});
export type JournalLine = ReturnType<typeof journalLine>;

/**
 * Items of a batch statement as its JSON array ($1 of `createBatchStatement`, the lines of
 * `unflushedJournalStatement`): each item's `record`, JSON text already, goes in as it is, not as a string of it,
 * and the statement reads it back as `json` and stores its text unchanged. Escaping the record into a string (each
 * quote and backslash of it, and its bodies' twice) cost the replica a second pass over the largest text it sends,
 * and PostgreSQL one to undo it.
 */
export function batchJson(items: readonly { readonly record: string }[]): string {
  const item = ({ record, ...rest }: { readonly record: string }) =>
    `${JSON.stringify(rest).slice(0, -1)},"record":${record}}`;
  return `[${items.map(item).join(',')}]`;
}

/**
 * Get-or-create in one statement, so one round trip and one commit: claims the fault due ($9), else inserts the
 * group unless its id is taken (the primary key decides between concurrent creates, on any replica) and, when it was
 * inserted, the journal entry ($10 … $12) with it. Answers the fault claimed, whether the group was made, and the
 * group already stored (as of the statement's start).
 */
export const createStatement = `
  WITH ${claimFault('$1', '$9')},
  made AS (
    INSERT INTO groups (${groupColumns}) SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE NOT EXISTS (SELECT FROM next)
    ON CONFLICT (tenant, environment, provided_id) DO NOTHING
    RETURNING 1
  ),
  logged AS (INSERT INTO journal (tenant, operation_id, invalid, record) SELECT $1, $10, $11, $12 FROM made RETURNING 1)
  SELECT
    (SELECT row_to_json(claimed) FROM claimed) AS claimed,
    EXISTS (SELECT FROM logged) AS made,
    (SELECT row_to_json(g) FROM groups g WHERE tenant = $1 AND environment = $2 AND provided_id = $3) AS existing`;

/**
 * Get-or-creates sent together, in one statement and one commit: $1 is a JSON array of `CreateItem`s (`batchJson`).
 * Each item whose tenant has a fault planned for it (`due`) is left alone, to be served by `createStatement`, which
 * claims the fault; the others are inserted in the order of their ids (so that two replicas' batches wait for each
 * other's rows in one order, never in a cycle), each id's first unless it is taken (the primary key decides between
 * concurrent creates, on any replica), and each item inserted has its journal entry written with it. Answers, per
 * item in its order: whether a fault may be due, whether its group was made (by its token, random: an id asked
 * twice in the batch is made once), and, for an item not made, the group already stored (as of the statement's
 * start; an item made had none, so its look-up is skipped). A token or team_id taken, or the tenant removed, fails
 * the statement: nothing of it is kept.
 */
export const createBatchStatement = `
  WITH input AS (
    SELECT * FROM json_to_recordset($1) AS i (
      n integer, tenant text COLLATE "C", environment text, provided_id text COLLATE "C", team_id bigint,
      token text COLLATE "C", name text, mapping text, properties text, claim text, "operationId" text,
      invalid boolean, record json)
  ),
  due AS (
    SELECT i.n FROM input i WHERE i.claim IS NOT NULL AND EXISTS (
      SELECT FROM faults f WHERE f.tenant = i.tenant AND (f.operation_id IS NULL OR f.operation_id = i.claim))
  ),
  made AS (
    INSERT INTO groups (${groupColumns})
    SELECT tenant, environment, provided_id, team_id, token, name, mapping, properties FROM input
    WHERE n NOT IN (SELECT n FROM due)
    ORDER BY tenant, environment, provided_id
    ON CONFLICT (tenant, environment, provided_id) DO NOTHING
    RETURNING token
  ),
  logged AS (
    INSERT INTO journal (tenant, operation_id, invalid, record)
    SELECT i.tenant, i."operationId", i.invalid, i.record::text FROM input i JOIN made USING (token) ORDER BY i.n
  )
  SELECT
    i.n IN (SELECT n FROM due) AS due,
    i.token IN (SELECT token FROM made) AS made,
    CASE WHEN i.token NOT IN (SELECT token FROM made) THEN (SELECT row_to_json(g) FROM groups g
      WHERE g.tenant = i.tenant AND g.environment = i.environment AND g.provided_id = i.provided_id) END AS existing
  FROM input i ORDER BY i.n`;

/**
 * The groups of get-or-creates asked together, read in one statement: $1 is a JSON array of `ReadItem`s. Answers,
 * per item in its order, whether a fault planned for its tenant may be due (as `createBatchStatement` tells it) and
 * the group stored, if any.
 */
export const readBatchStatement = `
  SELECT
    i.claim IS NOT NULL AND EXISTS (
      SELECT FROM faults f WHERE f.tenant = i.tenant AND (f.operation_id IS NULL OR f.operation_id = i.claim)
    ) AS due,
    (SELECT row_to_json(g) FROM groups g
      WHERE g.tenant = i.tenant AND g.environment = i.environment AND g.provided_id = i.provided_id) AS existing
  FROM json_to_recordset($1) AS i (
    n integer, tenant text COLLATE "C", environment text, provided_id text COLLATE "C", claim text)
  ORDER BY i.n`;

export interface ReadItem {
  readonly n: number;
  readonly tenant: string;
  readonly environment: string;
  readonly provided_id: string;
  readonly claim: string | null;
}

export interface ReadRow {
  readonly due: boolean;
  readonly existing: GroupRow | null;
}

/** One item of `createBatchStatement`: the group's row, the operation whose fault to claim, its entry. */
export interface CreateItem extends JournalLine, GroupRow {
  readonly n: number;
  readonly claim: string | null;
}

export interface CreateBatchRow {
  readonly due: boolean;
  readonly made: boolean;
  readonly existing: GroupRow | null;
}

export interface CreateRow {
  readonly claimed: Fault | null;
  readonly made: boolean;
  readonly existing: GroupRow | null;
}

/**
 * In a transaction: claims the fault due for operation $2 of tenant $1, else locks the groups `where` names (held
 * until the commit: a concurrent update or rotation of them waits, then sees the committed rows).
 */
export async function claimAndLock(
  client: Client,
  where: string,
  values: unknown[],
): Promise<{ claimed: Fault | null; targets: GroupRow[] }> {
  const { rows } = await client.query<{ claimed: Fault | null; targets: GroupRow[] | null }>(
    `WITH ${claimFault('$1', '$2')},
     target AS (
       SELECT * FROM groups WHERE ${where} AND NOT EXISTS (SELECT FROM next)
       ORDER BY tenant, environment, provided_id FOR UPDATE
     )
     SELECT (SELECT row_to_json(claimed) FROM claimed) AS claimed, (SELECT json_agg(target) FROM target) AS targets`,
    values,
  );
  const row = rows[0] as { claimed: Fault | null; targets: GroupRow[] | null };
  return { claimed: row.claimed, targets: row.targets ?? [] };
}

/**
 * Updates and rotations sent together, in a transaction: $1 is a JSON array of `ChangeItem`s. Locks every group an
 * item names (an update's id in either environment, a rotation's token), in the order of their primary key, so
 * that two replicas' batches, and a change sent alone, wait for each other's rows in one order, never in a cycle.
 * The groups are found first and locked by their key: a group whose token a rotation committed meanwhile is locked
 * all the same, and read as it is now (READ COMMITTED). Answers the items for which a fault planned for their tenant
 * may be due (`due`, their `n`s: served alone, which claims it) and the groups locked (`targets`).
 */
export const lockBatchStatement = `
  WITH input AS (
    SELECT * FROM json_to_recordset($1) AS i (
      n integer, tenant text COLLATE "C", provided_id text COLLATE "C", token text COLLATE "C", claim text)
  ),
  found AS (
    SELECT g.tenant, g.environment, g.provided_id FROM input i JOIN groups g
      ON g.tenant = i.tenant AND g.environment IN ('Customer', 'Testing') AND g.provided_id = i.provided_id
    UNION
    SELECT g.tenant, g.environment, g.provided_id FROM input i JOIN groups g ON g.token = i.token
  ),
  target AS (
    SELECT g.* FROM groups g JOIN found f
      ON g.tenant = f.tenant AND g.environment = f.environment AND g.provided_id = f.provided_id
    ORDER BY g.tenant, g.environment, g.provided_id FOR UPDATE OF g
  )
  SELECT
    (SELECT json_agg(i.n) FROM input i WHERE i.claim IS NOT NULL AND EXISTS (
      SELECT FROM faults f WHERE f.tenant = i.tenant AND (f.operation_id IS NULL OR f.operation_id = i.claim))) AS due,
    (SELECT json_agg(target) FROM target) AS targets`;

/** One item of `lockBatchStatement`: whose group, named by id (an update) or by token (a rotation). */
export interface ChangeItem {
  readonly n: number;
  readonly tenant: string;
  readonly provided_id: string | null;
  readonly token: string | null;
  readonly claim: string | null;
}

/**
 * The changes of a batch over its locked rows, in one statement: $1 is a JSON array of the groups changed (each
 * once, as it stands after the last change of it), $2 of the journal entries (`batchJson`, one per change, in the
 * order asked; a rotation's names the token it replaced). Answers how many groups it wrote: each was locked, so
 * every one, or the batch is rolled back.
 */
export const changeBatchStatement = `
  WITH changed AS (
    UPDATE groups g SET team_id = c.team_id, token = c.token, name = c.name, mapping = c.mapping,
      properties = c.properties
    FROM json_to_recordset($1) AS c (
      tenant text COLLATE "C", environment text, provided_id text COLLATE "C", team_id bigint, token text COLLATE "C",
      name text, mapping text, properties text)
    WHERE g.tenant = c.tenant AND g.environment = c.environment AND g.provided_id = c.provided_id
    RETURNING 1
  ),
  logged AS (
    INSERT INTO journal (tenant, operation_id, invalid, record, retired_token)
    SELECT e.tenant, e."operationId", e.invalid, e.record::text, e.retired
    FROM json_to_recordset($2) AS e (
      n integer, tenant text, "operationId" text, invalid boolean, retired text, record json)
    ORDER BY e.n
  )
  SELECT (SELECT count(*) FROM changed)::integer AS changed`;

/**
 * One statement: the changed group written over its locked row and, with it, the request's journal entry; a
 * rotation's entry names the token it replaced (`retired_token`, indexed), which `keyStatement` looks up.
 */
export async function changeAndJournal(
  client: Client,
  tenant: string,
  group: Group,
  line: JournalLine,
  retiredToken: string | null,
): Promise<void> {
  const { rowCount } = await client.query(
    `WITH changed AS (
       UPDATE groups SET team_id = $4, token = $5, name = $6, mapping = $7, properties = $8
       WHERE tenant = $1 AND environment = $2 AND provided_id = $3 RETURNING 1
     )
     INSERT INTO journal (tenant, operation_id, invalid, record, retired_token)
     SELECT $1, $9, $10, $11, $12 FROM changed`,
    [...groupValues(tenant, group), line.operationId, line.invalid, line.record, retiredToken],
  );
  if (rowCount !== 1) throw new Error('the locked row disappeared under its lock');
}

/**
 * What each key of $1 is, in its order, in one statement of index look-ups: the tenant whose key it is and the
 * environment, or 'group-token' for a group's token (now, or one a rotation the journal still lists replaced), or
 * NULL.
 */
export const keysStatement = `
  SELECT DISTINCT ON (k.n)
    CASE
      WHEN t.id IS NOT NULL THEN json_build_object('tenant', t.id,
        'environment', CASE WHEN t.customer_key = k.key THEN 'Customer' ELSE 'Testing' END)
      WHEN EXISTS (SELECT FROM groups WHERE token = k.key) OR EXISTS (SELECT FROM journal WHERE retired_token = k.key)
        THEN to_json('group-token'::text)
    END AS found
  FROM unnest($1::text[]) WITH ORDINALITY AS k (key, n)
    LEFT JOIN tenants t ON t.customer_key = k.key OR t.testing_key = k.key
  ORDER BY k.n`;

/**
 * Journal entries written by one statement, in their order: `lines` is a JSON array of `{ tenant, ...JournalLine }`
 * (`batchJson`);
 * committed without waiting for the WAL flush (`synchronous_commit` off for this statement's transaction only): the
 * entries of requests answered without a change, which an immediate stop of PostgreSQL may lose (decision 17).
 */
const unflushedJournal = (lines: string) => `
  INSERT INTO journal (tenant, operation_id, invalid, record)
  SELECT e.tenant, e."operationId", e.invalid, e.record::text
  FROM json_to_recordset(${lines}) AS e (tenant text, "operationId" text, invalid boolean, record json),
    (SELECT set_config('synchronous_commit', 'off', true)) s`;
export const unflushedJournalStatement = unflushedJournal('$1');

/**
 * `readBatchStatement` ($1) with the journal entries of `unflushedJournalStatement` ($2) written by the same
 * statement, in one round trip and one commit, unflushed as they are alone: the entries of the reads answered since
 * the batch before, which a replica under reads has ready when its next read batch goes (`ReadsAndEntries`).
 */
export const readAndJournalStatement = `WITH logged AS (${unflushedJournal('$2')})${readBatchStatement}`;
