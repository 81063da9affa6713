import type { RotatedAway } from '../../domain/userGroups.js';
import {
  isFaultOf,
  type JournalEntry,
  type JournalQuery,
  type JournalRecord,
  journalEntry,
  rotatedAway,
  type StoredRecord,
} from '../journal.js';
import { type Database, oneBatchAtATime } from './database.js';
import { ReadsAndEntries } from './readsAndEntries.js';
import { batchJson, journalLine, unflushedJournalStatement } from './statements.js';

/** How long the entries of requests no tenant's key let in are gathered into one statement. */
const keylessGatherMs = 10;

/**
 * Every tenant's journal, shared by every replica, bounded as the in-memory one is: a listing shows the newest
 * `capacity` entries, and each replica trims the table every hundredth entry it writes, so that it holds at most
 * about capacity + 100 per tenant.
 */
export class JournalTable {
  #recorded = 0;
  /** Per tenant, the entries this replica's trims deleted since this replica last emptied the journal. */
  readonly #trimmed = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly capacity: number,
    /** Where a tenant's entries go: shared with the reads of get-or-creates when the store passes its own. */
    private readonly batches = new ReadsAndEntries(db),
  ) {}

  /**
   * Journals a request answered without a change (a read, a refusal, a fault claimed): resolves once the entry is
   * committed (every replica lists it), written with the others asked at once (and with the reads of get-or-creates
   * asked meanwhile, `ReadsAndEntries`), without waiting for the disk (a change's entry goes with its change and
   * waits, decision 17). The entries of requests no tenant's key let in have batches of their own
   * (`keylessGatherMs`), which tenants never queue behind.
   */
  record(tenant: string, record: JournalRecord): Promise<void> {
    return (record.keyEnvironment === null ? this.#writeKeyless : this.#write)({ tenant, record });
  }

  /** A tenant's entry, in the batches it shares with the reads of get-or-creates. */
  readonly #write = async ({ tenant, record }: { tenant: string; record: JournalRecord }) => {
    await this.batches.write({ tenant, ...journalLine(record) });
    // Trimming is housekeeping: the entry's request is answered without waiting for it.
    this.counted(tenant).catch(() => undefined);
  };

  readonly #writeKeyless = oneBatchAtATime(
    async (entries: readonly { tenant: string; record: JournalRecord }[]) => {
      const lines = entries.map(({ tenant, record }) => ({ tenant, ...journalLine(record) }));
      await this.db.query(unflushedJournalStatement, [batchJson(lines)]);
      for (const { tenant } of entries) this.counted(tenant).catch(() => undefined);
      return entries.map(() => undefined);
    },
    keylessGatherMs,
  );

  /** The trims running: `dropped` waits for them, so that each trimmed row counts once, as kept or as trimmed. */
  #trimming: Promise<unknown> = Promise.resolve();

  /** Counts an entry written (by `record`, or with the change it journals), trimming every hundredth. */
  counted(tenant: string): Promise<void> {
    if (++this.#recorded % 100 !== 0) return Promise.resolve();
    const trimming = this.db.trim('journal', tenant, this.capacity).then((trimmed) => {
      if (trimmed > 0) this.#trimmed.set(tenant, (this.#trimmed.get(tenant) ?? 0) + trimmed);
    });
    this.#trimming = Promise.all([this.#trimming, trimming.catch(() => undefined)]);
    return trimming;
  }

  async list(tenant: string, query: JournalQuery): Promise<JournalEntry[]> {
    const { rows } = await this.db.query<{ id: string; at: Date; record: string }>(
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
    // The mock judges requests only, so an invalid entry is the client's: a `fault` filter keeps that side's.
    const entries = rows
      .reverse()
      .map((row) => journalEntry(JSON.parse(row.record) as StoredRecord, Number(row.id), row.at.getTime()));
    const { fault } = query;
    return fault === undefined ? entries : entries.filter((entry) => isFaultOf(entry, fault));
  }

  async clear(tenant: string): Promise<void> {
    await this.#trimming;
    await this.db.query('DELETE FROM journal WHERE tenant = $1', [tenant]);
    this.forget(tenant);
  }

  /** The tenant's journal is gone (emptied, or removed with the tenant): its count of dropped entries too. */
  forget(tenant: string): void {
    this.#trimmed.delete(tenant);
  }

  /**
   * The entries dropped past the limit: those kept but beyond the newest `capacity` (awaiting a trim), and those
   * this replica's trims deleted since it last emptied the journal (a trim by another replica is counted there).
   */
  async dropped(tenant: string): Promise<number> {
    await this.#trimming;
    const { rows } = await this.db.query<{ kept: string }>(
      'SELECT count(*) AS kept FROM journal WHERE tenant = $1',
      [tenant],
    );
    const beyond = Math.max(0, Number(rows[0]?.kept ?? 0) - this.capacity);
    return beyond + (this.#trimmed.get(tenant) ?? 0);
  }

  /** The newest journaled rotation that replaced `token` in the tenant (every replica's), by its index. */
  async rotatedAway(tenant: string, token: string): Promise<RotatedAway | undefined> {
    const { rows } = await this.db.query<{ at: Date; record: string }>(
      'SELECT at, record FROM journal WHERE retired_token = $2 AND tenant = $1 ORDER BY id DESC LIMIT 1',
      [tenant, token],
    );
    const row = rows[0];
    return row && rotatedAway(JSON.parse(row.record) as StoredRecord, row.at.getTime())?.[1];
  }
}
