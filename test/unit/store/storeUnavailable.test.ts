import { describe, expect, it } from 'vitest';
import { mayHaveReached } from '../../../src/store/postgres/database.js';
import { StoreUnavailableError } from '../../../src/store/store.js';

const failure = (message: string, code?: string): Error => Object.assign(new Error(message), { code });

describe('a request PostgreSQL could not take', () => {
  it.each([
    ['the connection ended under a statement', failure('Connection terminated unexpectedly'), true],
    ['the connection reset', failure('read ECONNRESET', 'ECONNRESET'), true],
    [
      'the server shut the session down',
      failure('terminating connection due to administrator command', '57P01'),
      true,
    ],
    ['a connection refused', failure('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), false],
    ['no connection within the timeout', failure('timeout exceeded when trying to connect'), false],
    ['a server starting up', failure('the database system is starting up', '57P03'), false],
    [
      'a client already broken',
      failure('Client has encountered a connection error and is not queryable'),
      false,
    ],
  ])('when %s, says whether it may have been kept', (_, error, inFlight) => {
    expect(mayHaveReached(error)).toBe(inFlight);
    const { reason } = new StoreUnavailableError(error, mayHaveReached(error));
    expect(reason).toContain(error.message);
    expect(reason).toContain(
      inFlight ? 'so it may or may not have been kept' : 'nothing of this request was kept',
    );
  });
});
