import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/store/journal.js';
import type { Database } from '../../../src/store/postgres/database.js';
import { JournalTable } from '../../../src/store/postgres/journalTable.js';
import { journalRecord } from '../../support/journalRecord.js';

const record = (n: number, keyEnvironment: JournalRecord['keyEnvironment']): JournalRecord =>
  journalRecord(String(n), {
    operationId: 'getOrCreateUserGroup',
    keyEnvironment,
    status: keyEnvironment === null ? 401 : 200,
  });

/**
 * A database that keeps each journal statement's entries (as the request texts, in order) and holds each trim until
 * the test lets it go; `count` is what a count of the tenant's rows answers.
 */
function fakeDatabase() {
  const statements: { texts: string[] }[] = [];
  const trims: Array<(deleted: number) => void> = [];
  let count = 0;
  const db = {
    async query(_text: string, values: unknown[] = []) {
      if (typeof values[0] !== 'string' || !values[0].startsWith('['))
        return { rows: [{ kept: String(count) }] };
      // Each line's record is in the array as JSON, not as a string of it (`batchJson`).
      const lines = JSON.parse(values[0]) as { record: { requestText: string } }[];
      statements.push({ texts: lines.map((line) => line.record.requestText) });
      return { rows: [], rowCount: lines.length };
    },
    trim: () => new Promise<number>((resolve) => trims.push(resolve)),
  };
  return {
    db: db as unknown as Database,
    statements,
    trims,
    setCount: (n: number) => {
      count = n;
    },
  };
}

describe('JournalTable (PostgreSQL journal), against a fake database', () => {
  it("writes a tenant's entry at once, apart from the entries of requests no tenant's key let in", async () => {
    const { db, statements } = fakeDatabase();
    const table = new JournalTable(db, 1_000);
    const keyless = [1, 2, 3].map((n) => table.record('default', record(n, null)));
    const tenant = table.record('default', record(4, 'Customer'));
    await tenant;
    // Written before the wrong keys' entries are, in a statement of its own.
    expect(statements.map((s) => s.texts)).toEqual([['4']]);
    await Promise.all(keyless);
    expect(statements.map((s) => s.texts)).toEqual([['4'], ['1', '2', '3']]);
  });

  it('answers the entry that starts a trim without waiting for it, and counts what the trim deletes once', async () => {
    const { db, trims, setCount } = fakeDatabase();
    const table = new JournalTable(db, 50);
    for (let n = 1; n < 100; n++) await table.record('default', record(n, 'Customer'));
    // The hundredth entry starts a trim, which the database holds: the entry is written all the same.
    await table.record('default', record(100, 'Customer'));
    expect(trims).toHaveLength(1);
    setCount(100);
    const dropped = table.dropped('default');
    // The count waits for the trim: asked before it ended, it would count the deleted rows as kept (and
    // then as trimmed too, once it ended).
    setCount(50);
    trims[0]?.(50);
    expect(await dropped).toBe(50);
  });
});
