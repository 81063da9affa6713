import { apiError } from '../errors.js';
import type { Operation } from '../spec/operations.js';
import type { JournalQuery } from '../store/journal.js';
import { adminOperations } from './adminDocument.js';
import { MockControlError } from './mockControlError.js';
import { queryValueProblems } from './parameters.js';

/**
 * A journal query given in process (`requests(query)` of the mock, a tenant or the proxy), checked as
 * `GET /__admin/requests` checks its query (the listRequests parameters of openapi/admin.yaml, one check for both).
 * A mistake of the calling code, so it throws a `MockControlError`, naming each problem; a filter that matched nothing would let "no
 * invalid requests" pass. `after` (the events' backlog) is no parameter of that call and is checked on its own.
 */
export function checkJournalQuery(query: unknown): JournalQuery {
  if (query === undefined) return {};
  if (query === null || typeof query !== 'object' || Array.isArray(query))
    throw new MockControlError(
      'requests',
      apiError(
        'VALIDATION_FAILED',
        'the query object comes first, e.g. tenant.requests({ invalid: true }) or requests({ invalid: true }, tenant.id)',
      ),
    );
  const { after, ...parameters } = query as JournalQuery;
  const problems: string[] = [];
  if (after !== undefined && !(Number.isSafeInteger(after) && after >= 0))
    problems.push(`after must be a journal entry's id (an integer from 0), not ${JSON.stringify(after)}`);
  problems.push(...queryValueProblems(listRequests(), parameters).map(said));
  if (problems.length > 0)
    throw new MockControlError(
      'requests',
      apiError(
        'VALIDATION_FAILED',
        `${problems.join('; ')} (the query takes what GET /__admin/requests does, operationId, invalid, fault and limit, and after, an entry's id)`,
      ),
    );
  return query as JournalQuery;
}

// endpoints has a handler for each operation of openapi/admin.yaml, and the drift test one operation for each.
const listRequests = () => adminOperations().find((o) => o.operationId === 'listRequests') as Operation;

/** A parameter's diagnostic said of the query object (`operationId must be ...`; a misspelt one with the one meant). */
const said = (message: string): string =>
  message.replace(/^query\//, '').replace(/^query has/, 'the query has');
