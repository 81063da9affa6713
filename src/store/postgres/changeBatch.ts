import type { KeyOwner } from '../../domain/model.js';
import type { Decision } from '../../domain/userGroups.js';
import type { Result } from '../../result.js';
import type { OperationId } from '../../spec/operations.js';
import type { Fault } from '../faults.js';
import type { Client } from './database.js';
import { type GroupRow, groupRow } from './rows.js';
import {
  batchJson,
  type ChangeItem,
  changeBatchStatement,
  type JournalLine,
  lockBatchStatement,
} from './statements.js';

/**
 * What a request came to: a planned fault claimed (nothing else done), or the rule's result, with whether its
 * journal entry was written with the change (when it was not, the caller journals the answer).
 */
export type Served =
  | { readonly fault: Fault }
  | { readonly fault?: undefined; readonly result: Result<Decision<unknown>>; readonly journaled: boolean };

/** One service request to serve: whose key, the operation whose planned fault to claim (null: none), its entry. */
export interface Asked {
  readonly owner: KeyOwner;
  readonly claim: OperationId | null;
  /** How the answer's journal entry is made, for the statement that writes it with the change. */
  readonly journal: (decision: Decision<unknown>) => JournalLine;
}

/** An update or a rotation to serve: whose key, the group it names, the rule over what it names, the token it retires. */
export interface Changing {
  readonly asked: Asked;
  /** An update names its group by id (stored text), a rotation by its current token. */
  readonly names: Pick<ChangeItem, 'provided_id' | 'token'>;
  readonly decide: (rows: readonly GroupRow[]) => Result<Decision<unknown>>;
  readonly retired: string | null;
}

/**
 * A batch of updates and rotations in the transaction of `client`: every group they name locked in one statement
 * (`lockBatchStatement`), the rules applied in the order asked over the rows as the changes before leave them (an
 * update and a rotation of one group in one batch see each other's change, as in turn), and every change written
 * with its journal entry in one more (`changeBatchStatement`). Answers what each item came to, or undefined for an
 * item a fault may be due for (to be sent alone).
 */
export async function changeBatch(
  client: Client,
  items: readonly Changing[],
): Promise<(Served | undefined)[]> {
  const asked: ChangeItem[] = items.map(({ asked, names }, n) => ({
    n,
    tenant: asked.owner.tenant,
    ...names,
    claim: asked.claim,
  }));
  const { rows } = await client.query<{ due: number[] | null; targets: GroupRow[] | null }>(
    lockBatchStatement,
    [JSON.stringify(asked)],
  );
  const due = new Set(rows[0]?.due ?? []);
  const current = new Map<string, GroupRow>();
  const keyOf = (row: GroupRow) => `${row.tenant}\0${row.environment}\0${row.provided_id}`;
  for (const row of rows[0]?.targets ?? []) current.set(keyOf(row), row);
  const changed = new Map<string, GroupRow>();
  const lines: (JournalLine & { n: number; tenant: string; retired: string | null })[] = [];
  const served = items.map(({ asked: { owner, journal }, names, decide, retired }, n): Served | undefined => {
    if (due.has(n)) return undefined;
    const named = [...current.values()].filter((row) =>
      names.provided_id !== null
        ? row.tenant === owner.tenant && row.provided_id === names.provided_id
        : row.token === names.token,
    );
    const result = decide(named);
    const change = result.ok ? result.value.changes[0] : undefined;
    if (!result.ok || change?.op !== 'putGroup') return { result, journaled: false };
    const row = groupRow(owner.tenant, change.group);
    current.set(keyOf(row), row);
    changed.set(keyOf(row), row);
    lines.push({ n, tenant: owner.tenant, retired, ...journal(result.value) });
    return { result, journaled: true };
  });
  if (lines.length === 0) return served;
  const written = await client.query<{ changed: number }>(changeBatchStatement, [
    JSON.stringify([...changed.values()]),
    batchJson(lines),
  ]);
  if (written.rows[0]?.changed !== changed.size) throw new Error('a locked row disappeared under its lock');
  return served;
}
