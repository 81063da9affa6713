import type { PostgresStore } from '../store/postgres/postgresStore.js';
import type { Fault, FaultSpec } from './faults.js';
import { type JournalEntry, type JournalQuery, type JournalRecord, journalEntry } from './journal.js';

/**
 * The journal and the planned faults of every tenant, kept in PostgreSQL beside the groups when it is the store,
 * so that every replica reads one journal and a fault planned through one replica strikes whichever replica serves
 * the next matching call. Bounded as the in-memory ones are: the newest `capacity` entries and faults per tenant.
 */
export class SharedRuntime {
  #recorded = 0;

  constructor(
    private readonly store: PostgresStore,
    private readonly capacity = 1000,
  ) {}

  async record(tenant: string, record: JournalRecord): Promise<void> {
    await this.store.query(
      'INSERT INTO journal (tenant, operation_id, invalid, record) VALUES ($1, $2, $3, $4)',
      [tenant, record.operationId, record.diagnostics.length > 0, JSON.stringify(record)],
    );
    // Trimmed every hundredth record of this replica: the table holds at most about capacity + 100 per tenant,
    // and a listing shows the newest `capacity`.
    if (++this.#recorded % 100 === 0) await this.#trim('journal', tenant);
  }

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
        query.invalid === true,
        query.after ?? null,
        query.limit ?? this.capacity,
      ],
    );
    return rows
      .reverse()
      .map((row) => journalEntry(JSON.parse(row.record) as JournalRecord, Number(row.id), row.at.getTime()));
  }

  async clear(tenant: string): Promise<void> {
    await this.store.query('DELETE FROM journal WHERE tenant = $1', [tenant]);
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

  /**
   * The first fault of the tenant matching this operation, counted as used (removed with its last use). The row
   * is locked while it is counted: of two replicas taking at once, each takes one use, never the same one.
   */
  async takeFault(tenant: string, operationId: string): Promise<Fault | undefined> {
    const { rows } = await this.store.query<FaultRow>(
      `WITH next AS (
         SELECT id, remaining FROM faults WHERE tenant = $1 AND (operation_id IS NULL OR operation_id = $2)
         ORDER BY id LIMIT 1 FOR UPDATE
       ),
       gone AS (DELETE FROM faults f USING next WHERE f.id = next.id AND next.remaining <= 1 RETURNING f.*),
       kept AS (
         UPDATE faults f SET remaining = f.remaining - 1 FROM next WHERE f.id = next.id AND next.remaining > 1
         RETURNING f.*
       )
       SELECT * FROM gone UNION ALL SELECT * FROM kept`,
      [tenant, operationId],
    );
    const row = rows[0];
    return row === undefined ? undefined : faultOf(row);
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
    await this.store.query(
      `DELETE FROM ${table} WHERE tenant = $1 AND id < (SELECT id FROM ${table} WHERE tenant = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
      [tenant, this.capacity - 1],
    );
  }
}

interface FaultRow {
  readonly id: string;
  readonly operation_id: string | null;
  readonly status: number | null;
  readonly delay_ms: number;
  readonly action: string | null;
  readonly remaining: number;
}

const faultOf = (row: FaultRow): Fault => ({
  id: Number(row.id),
  operationId: row.operation_id as Fault['operationId'],
  status: row.status as Fault['status'],
  delay_ms: row.delay_ms,
  action: row.action as Fault['action'],
  remaining: row.remaining,
});
