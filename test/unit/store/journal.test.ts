import { describe, expect, it } from 'vitest';
import { Journal, type JournalRecord } from '../../../src/store/journal.js';
import { journalRecord } from '../../support/journalRecord.js';

const record = (n: number): JournalRecord => journalRecord(String(n));

describe('Journal', () => {
  it('keeps the newest 1,000 entries by default, with their ids running on', () => {
    const journal = new Journal();
    for (let i = 0; i < 1005; i++) journal.record(record(i));
    const entries = journal.list();
    expect(entries).toHaveLength(1000);
    expect([entries[0]?.id, entries[0]?.requestBody, entries.at(-1)?.id]).toEqual([6, 5, 1005]);
    expect(journal.dropped).toBe(5);
  });

  it('counts each entry dropped past its capacity, and starts again from 0 when cleared', () => {
    const journal = new Journal(2);
    for (let i = 0; i < 2; i++) journal.record(record(i));
    expect(journal.dropped).toBe(0);
    for (let i = 2; i < 7; i++) journal.record(record(i));
    expect([journal.dropped, journal.list().map((e) => e.requestBody)]).toEqual([5, [5, 6]]);
    journal.clear();
    expect(journal.dropped).toBe(0);
    journal.record(record(7));
    journal.record(record(8));
    expect(journal.dropped).toBe(0);
  });

  it('drops its oldest entries, counted as dropped, while their bodies hold more text than its budget', () => {
    // Capacity 4, at most 100 characters of body text; each record holds 40 (a JSON string of 38 letters).
    const journal = new Journal(4, 100);
    const body = (letter: string) => JSON.stringify(letter.repeat(38));
    for (const letter of 'abcde') journal.record(journalRecord(body(letter)));
    expect(journal.list().map((e) => (e.requestBody as string)[0])).toEqual(['d', 'e']);
    expect(journal.dropped).toBe(3);
    // An answer's text counts too; an entry over the budget alone is kept, alone.
    journal.record(journalRecord('1', { responseText: JSON.stringify('z'.repeat(200)) }));
    expect(journal.list().map((e) => e.id)).toEqual([6]);
    expect(journal.dropped).toBe(5);
    // Room again: the ring goes on past its capacity, the newest kept in order.
    for (let i = 7; i <= 12; i++) journal.record(record(i));
    expect(journal.list().map((e) => e.requestBody)).toEqual([9, 10, 11, 12]);
    expect(journal.dropped).toBe(8);
    journal.clear();
    journal.record(journalRecord(body('f')));
    journal.record(journalRecord(body('g')));
    expect([journal.list().length, journal.dropped]).toEqual([2, 0]);
  });

  it('lists each record as it was given, field for field, and keeps no hold on the object it was given', () => {
    const journal = new Journal(3);
    const diagnostic = {
      code: 'MISSING_FIELD',
      path: '/body/name',
      message: 'body must have required field "name"',
    };
    const given: JournalRecord = {
      method: 'PUT',
      path: '/api/user',
      operationId: 'updateUserGroup',
      keyEnvironment: 'Testing',
      status: 400,
      durationMs: 0.25,
      rawHeaders: ['Authorization', 'Token dev-testing-key', 'Content-Type', 'application/json'],
      keyMatched: 'the Testing key of tenant "default"',
      requestText: undefined,
      requestBody: 'not json',
      responseText: '{"success":0}',
      diagnostics: [diagnostic],
      warnings: [],
      fault: 'provider',
    };
    journal.record(given);
    journal.record(record(1));
    // The journal copies the fields: a caller that changes or reuses its object later changes no entry.
    Object.assign(given, { status: 200, diagnostics: [] });
    const [first, second] = journal.list();
    expect(first).toMatchObject({
      id: 1,
      method: 'PUT',
      operationId: 'updateUserGroup',
      keyEnvironment: 'Testing',
      status: 400,
      durationMs: 0.25,
      requestBody: 'not json',
      responseBody: { success: 0 },
      diagnostics: [diagnostic],
      fault: 'provider',
      requestHeaders: [
        { name: 'Authorization', value: 'Token ‹15 characters: the Testing key of tenant "default"›' },
        { name: 'Content-Type', value: 'application/json' },
      ],
      requestBodyNotKept: null,
    });
    expect(Object.keys(first ?? {})).toEqual(Object.keys(second ?? {}));
    expect(second).toMatchObject({ id: 2, status: 200, requestBody: 1, fault: null });
  });

  it('lists under a fault filter the entries of that side, an exchange both sides broke under either', () => {
    const journal = new Journal();
    const broke = [{ code: 'MISSING_FIELD', path: '/body/name', message: 'no name' }];
    for (const fault of [undefined, 'client', 'provider', 'both'] as const)
      journal.record({ ...record(0), diagnostics: broke, ...(fault === undefined ? {} : { fault }) });
    journal.record(record(1)); // valid: no side's
    expect(journal.list({ fault: 'client' }).map((e) => [e.id, e.fault])).toEqual([
      [1, 'client'],
      [2, 'client'],
      [4, 'both'],
    ]);
    expect(journal.list({ fault: 'provider' }).map((e) => [e.id, e.fault])).toEqual([
      [3, 'provider'],
      [4, 'both'],
    ]);
    expect(journal.list({ fault: 'both' }).map((e) => [e.id, e.fault])).toEqual([[4, 'both']]);
  });
});
