import { type Database, oneBatchAtATime } from './database.js';
import {
  batchJson,
  type JournalLine,
  type ReadItem,
  type ReadRow,
  readAndJournalStatement,
  readBatchStatement,
  unflushedJournalStatement,
} from './statements.js';

/** A journal entry of a tenant's request answered without a change, as `unflushedJournalStatement` takes it. */
export interface TenantLine extends JournalLine {
  readonly tenant: string;
}

type Item = { readonly read: Omit<ReadItem, 'n'> } | { readonly entry: TenantLine };

/**
 * The reads of get-or-creates and the journal entries of requests answered without a change (a tenant's: those no
 * tenant's key let in have batches of their own), in one batch and one statement, one batch in flight: a read is
 * answered, then its entry is written, so under reads each batch carries the entries of the reads the batch before
 * answered (`readAndJournalStatement`), one round trip and one commit where there were two. An entry alone, or reads
 * alone, go at once in a statement of their own, as before. Each entry still resolves only once its statement has
 * committed (listed by every replica), before its request is answered; a statement that fails fails its reads and
 * its entries alike.
 */
export class ReadsAndEntries {
  constructor(private readonly db: Database) {}

  read(item: Omit<ReadItem, 'n'>): Promise<ReadRow> {
    return this.#send({ read: item }) as Promise<ReadRow>;
  }

  write(entry: TenantLine): Promise<void> {
    return this.#send({ entry }) as Promise<undefined>;
  }

  readonly #send = oneBatchAtATime(async (items: readonly Item[]): Promise<(ReadRow | undefined)[]> => {
    const reads: ReadItem[] = [];
    const entries: TenantLine[] = [];
    for (const item of items) {
      if ('read' in item) reads.push({ n: reads.length, ...item.read });
      else entries.push(item.entry);
    }
    if (reads.length === 0) {
      await this.db.query(unflushedJournalStatement, [batchJson(entries)]);
      return items.map(() => undefined);
    }
    const { rows } = await (entries.length === 0
      ? this.db.query<ReadRow>(readBatchStatement, [JSON.stringify(reads)])
      : this.db.query<ReadRow>(readAndJournalStatement, [JSON.stringify(reads), batchJson(entries)]));
    let next = 0;
    return items.map((item) => ('read' in item ? rows[next++] : undefined));
  });
}
