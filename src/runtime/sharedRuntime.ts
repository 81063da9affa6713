import type { FaultRow } from '../store/postgres/faultRows.js';
import type { PostgresStore } from '../store/postgres/postgresStore.js';
import type { JournalLine } from '../store/postgres/statements.js';
import type { Fault, FaultSpec } from './faults.js';
import {
  defaultJournalLimit,
  isFaultOf,
  type JournalEntry,
  type JournalQuery,
  type JournalRecord,
  journalEntry,
  type StoredRecord,
  storedRecord,
} from './journal.js';
import { type RetiredToken, rotatedAway } from './retiredTokens.js';

/**
 * The journal and the planned faults of every tenant, kept in PostgreSQL beside the groups when it is the store,
 * so that every replica reads one journal and a fault planned through one replica strikes whichever replica serves
 * the next matching call. Bounded as the in-memory ones are: the newest `capacity` entries and faults per tenant.
 */
export class SharedRuntime {
  #recorded = 0;
  /** Per tenant, the entries this replica's trims deleted since this replica last emptied the journal. */
  readonly #trimmed = new Map<string, number>();

  constructor(
    private readonly store: PostgresStore,
    private readonly capacity = defaultJournalLimit,
  ) {}

  async record(tenant: string, record: JournalRecord): Promise<void> {
    const { operationId, invalid, record: text } = journalLine(record);
    await this.store.query(
      'INSERT INTO journal (tenant, operation_id, invalid, record) VALUES ($1, $2, $3, $4)',
      [tenant, operationId, invalid, text],
    );
    await this.recorded(tenant);
  }

  /**
   * Counts an entry written (by `record`, or by the store with the change it journals). The journal is trimmed
   * every hundredth entry of this replica: the table holds at most about capacity + 100 per tenant, and a listing
   * shows the newest `capacity`.
   */
  async recorded(tenant: string): Promise<void> {
    if (++this.#recorded % 100 === 0) await this.#trim('journal', tenant);
  }

  /**
   * The entries `query` asks for. The mock judges requests only, so an invalid entry is always the client's: a
   * `fault` filter reads the invalid entries and keeps those of that side (none for `provider`).
   */
  async list(tenant: string, query: JournalQuery = {}): Promise<JournalEntry[]> {
    const { rows } = await this.store.query<{ id: string; at: Date; record: string }>(
      `SELECT id, at, record FROM (
         SELECT id, at, record, operation_id, invalid FROM journal WHERE tenant = $1 ORDER BY id DESC LIMIT $2
       ) newest
       WHERE ($3::text IS NULL OR operation_id = $3) AND (NOT $4 OR invalid) AND ($5::bigint IS NULL OR id > $5)
       ORDER BY id DESC LIMIT $6`,
      [
        tenant,
        this.capacity,
        query.operationId ?? null,
        query.invalid === true || query.fault !== undefined,
        query.after ?? null,
        query.limit ?? this.capacity,
      ],
    );
    const entries = rows
      .reverse()
      .map((row) => journalEntry(JSON.parse(row.record) as StoredRecord, Number(row.id), row.at.getTime()));
    const { fault } = query;
    return fault === undefined ? entries : entries.filter((entry) => isFaultOf(entry, fault));
  }

  async clear(tenant: string): Promise<void> {
    await this.store.query('DELETE FROM journal WHERE tenant = $1', [tenant]);
    this.#trimmed.delete(tenant);
  }

  /**
   * The entries dropped past the limit: those kept but beyond the newest `capacity` (awaiting a trim), and those
   * this replica's trims deleted since it last emptied the journal (a trim by another replica is counted there).
   */
  async dropped(tenant: string): Promise<number> {
    const { rows } = await this.store.query<{ kept: string }>(
      'SELECT count(*) AS kept FROM journal WHERE tenant = $1',
      [tenant],
    );
    const beyond = Math.max(0, Number(rows[0]?.kept ?? 0) - this.capacity);
    return beyond + (this.#trimmed.get(tenant) ?? 0);
  }

  /**
   * The group a token belonged to before a rotation replaced it, read from the tenant's journal (every replica's
   * rotations), while the journal keeps that rotation.
   */
  async retired(tenant: string, token: string): Promise<RetiredToken | undefined> {
    const { rows } = await this.store.query<{ at: Date; record: string }>(
      `SELECT at, record FROM journal
       WHERE tenant = $1 AND operation_id = 'rotateUserGroupToken' AND position($2 IN record) > 0
       ORDER BY id DESC`,
      [tenant, token],
    );
    for (const row of rows) {
      const found = rotatedAway(JSON.parse(row.record) as JournalRecord, row.at.getTime());
      if (found?.[0] === token) return found[1];
    }
    return undefined;
  }

  async addFault(tenant: string, spec: FaultSpec): Promise<Fault> {
    const { rows } = await this.store.query<FaultRow>(
      'INSERT INTO faults (tenant, operation_id, status, delay_ms, action, remaining) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
      [
        tenant,
        spec.operationId ?? null,
        spec.status ?? null,
        spec.delay_ms ?? 0,
        spec.action ?? null,
        spec.times ?? 1,
      ],
    );
    await this.#trim('faults', tenant);
    return faultOf(rows[0] as FaultRow);
  }

  async faults(tenant: string): Promise<Fault[]> {
    const { rows } = await this.store.query<FaultRow>('SELECT * FROM faults WHERE tenant = $1 ORDER BY id', [
      tenant,
    ]);
    return rows.map(faultOf);
  }

  async clearFaults(tenant: string): Promise<void> {
    await this.store.query('DELETE FROM faults WHERE tenant = $1', [tenant]);
  }

  async #trim(table: 'journal' | 'faults', tenant: string): Promise<void> {
    const trimmed = await this.store.query(
      `DELETE FROM ${table} WHERE tenant = $1 AND id < (SELECT id FROM ${table} WHERE tenant = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
      [tenant, this.capacity - 1],
    );
    if (table === 'journal' && (trimmed.rowCount ?? 0) > 0)
      this.#trimmed.set(tenant, (this.#trimmed.get(tenant) ?? 0) + (trimmed.rowCount ?? 0));
  }
}

/** A journal record as the journal table holds it. */
export const journalLine = (record: JournalRecord): JournalLine => ({
  operationId: record.operationId,
  invalid: record.diagnostics.length > 0,
  record: JSON.stringify(storedRecord(record)),
});

export const faultOf = (row: FaultRow): Fault => ({
  id: Number(row.id),
  operationId: row.operation_id as Fault['operationId'],
  status: row.status as Fault['status'],
  delay_ms: row.delay_ms,
  action: row.action as Fault['action'],
  remaining: row.remaining,
});
