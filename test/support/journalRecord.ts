import type { JournalRecord } from '../../src/store/journal.js';

/** A journal record of a GET /api/user answered 200, told apart by its request text; `fields` replace any field. */
export const journalRecord = (requestText: string, fields: Partial<JournalRecord> = {}): JournalRecord => ({
  method: 'GET',
  path: '/api/user',
  operationId: null,
  keyEnvironment: null,
  status: 200,
  durationMs: 1,
  rawHeaders: [],
  requestText,
  requestBody: null,
  responseText: null,
  diagnostics: [],
  warnings: [],
  ...fields,
});
