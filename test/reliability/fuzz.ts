import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { Pool } from 'undici';
import { createMockServer } from '../../src/index.js';
import { validBody } from '../support/arbitraries.js';
import { memoryGroups } from '../support/dbFiles.js';
import {
  type Answer,
  answerProblems,
  apiRequest,
  customerKey,
  errorCodeOf,
  isNewGroup,
  type OperationName,
  send,
  testingKey,
  userGroupOf,
} from '../support/http.js';
import { type Mutation, mutationNamed, mutations } from '../support/mutations.js';
import { Random } from '../support/random.js';

export interface FuzzOptions {
  readonly validRuns: number;
  readonly mutatedRuns: number;
  readonly timeBudgetMs: number;
  readonly seed: number;
}

export interface FuzzReport {
  readonly seed: number;
  /** Runs fast-check completed (a time budget may stop it before the count). */
  validRuns: number;
  mutatedRuns: number;
  requests: number;
  /** fast-check's report of the first failing property (shrunk), if any. */
  readonly failures: string[];
  elapsedMs: number;
}

const operationNames: readonly OperationName[] = [
  'getOrCreateUserGroup',
  'updateUserGroup',
  'rotateUserGroupToken',
];

/** Throws with every problem found, so that fast-check records the run as failed and shrinks it. */
function expectNone(problems: readonly string[], context: string): void {
  if (problems.length > 0) throw new Error(`${context}:\n  ${problems.join('\n  ')}`);
}

/** An answer must be what the document says: its schema for this status, and `expected` status. */
function judge(method: string, path: string, answer: Answer, expected: number): string[] {
  const problems = answerProblems(method, path, answer.status, answer.body);
  if (answer.status !== expected)
    problems.unshift(`status ${answer.status}, expected ${expected}: ${answer.text.slice(0, 300)}`);
  return problems;
}

/**
 * Property-based fuzzing against one in-memory server, reset before each run. Valid runs: bodies derived from
 * the document's request schemas (and json-schema-faker's) go through create, re-read, update and rotate, and
 * every answer is 200, validates, and says what the run did. Mutated runs: a valid request broken one way gets
 * exactly the 4xx the document promises, with `success: 0`, never a 5xx or a hang, and changes nothing.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const report: FuzzReport = {
    seed: options.seed,
    validRuns: 0,
    mutatedRuns: 0,
    requests: 0,
    failures: [],
    elapsedMs: 0,
  };
  const server = await createMockServer();
  const pool = new Pool(server.url, { connections: 4, headersTimeout: 5000, bodyTimeout: 5000 });
  const call = async (...args: Parameters<typeof apiRequest>): Promise<Answer> => {
    report.requests++;
    return send(pool, apiRequest(...args));
  };
  // Valid runs cost about three times as much as mutated ones: neither property may use up the other's time.
  const validShare = options.validRuns / (options.validRuns + options.mutatedRuns / 3);
  const remaining = (): number => Math.max(1000, options.timeBudgetMs - (performance.now() - started));
  try {
    const validRun = fc.asyncProperty(
      fc.record({
        key: fc.constantFrom(customerKey, testingKey),
        create: validBody('getOrCreateUserGroup'),
        update: validBody('updateUserGroup'),
        rotate: validBody('rotateUserGroupToken'),
      }),
      async (drawn) => {
        // The oracle is what goes over the wire: JSON.stringify turns -0 into 0, as every client's would.
        const { key, create, update, rotate } = JSON.parse(JSON.stringify(drawn)) as typeof drawn;
        await server.reset();
        const id = create.user_group_id as string;
        const first = await call('getOrCreateUserGroup', create, key);
        expectNone(judge('GET', '/api/user', first, 200), 'create');
        const group = userGroupOf(first);
        const expected = { name: create.name, provided_id: id, properties: create.properties ?? null };
        expectNone(
          [
            ...(isNewGroup(first) === true ? [] : ['new_user_group is not true']),
            ...(isDeepStrictEqual(
              { name: group.name, provided_id: group.provided_id, properties: group.properties },
              expected,
            )
              ? []
              : [`created ${JSON.stringify(group)}, expected ${JSON.stringify(expected)}`]),
          ],
          'create',
        );
        const again = await call('getOrCreateUserGroup', create, key);
        expectNone(judge('GET', '/api/user', again, 200), 'read again');
        if (isNewGroup(again) !== false || userGroupOf(again).token !== group.token)
          expectNone(['a second get-or-create of the id did not return the stored group'], 'read again');

        const updated = await call('updateUserGroup', { ...update, user_group_id: id }, key);
        expectNone(judge('PUT', '/api/user', updated, 200), 'update');
        const after = userGroupOf(updated);
        const want = {
          name: update.name ?? create.name,
          properties: update.properties ?? create.properties ?? null,
          token: group.token,
          api_environment_tag: key === customerKey ? 'Customer' : 'Testing',
        };
        const got = {
          name: after.name,
          properties: after.properties,
          token: after.token,
          api_environment_tag: after.api_environment_tag,
        };
        if (!isDeepStrictEqual(got, want))
          expectNone([`updated to ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`], 'update');

        const rotated = await call('rotateUserGroupToken', { ...rotate, current_token: group.token }, key);
        expectNone(judge('POST', '/api/user', rotated, 200), 'rotate');
        if (userGroupOf(rotated).token === group.token) expectNone(['the token did not change'], 'rotate');
        const reuse = await call('rotateUserGroupToken', { current_token: group.token }, key);
        expectNone(judge('POST', '/api/user', reuse, 404), 'reuse the old token');
      },
    );
    report.validRuns = await check(
      validRun,
      options.validRuns,
      options.seed,
      options.timeBudgetMs * validShare,
      report,
    );

    const mutatedRun = fc.asyncProperty(
      fc.constantFrom(...operationNames).chain((operation) =>
        fc.record({
          operation: fc.constant(operation),
          body: validBody(operation),
          mutation: fc.constantFrom(...mutations.map((m) => m.name)),
          seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        }),
      ),
      async ({ operation, body, mutation: name, seed }) => {
        const mutation = mutationNamed(name);
        await server.reset();
        const base = await arrange(operation, body, call);
        const before = await memoryGroups(server);
        const request = mutation.apply({ operation, body: base }, new Random(seed));
        report.requests++;
        const answer = await send(pool, request);
        expectNone(refusalProblems(request.method, request.path, answer, mutation), mutation.name);
        if (!isDeepStrictEqual(await memoryGroups(server), before))
          expectNone(['the store changed'], mutation.name);
      },
    );
    report.mutatedRuns = await check(mutatedRun, options.mutatedRuns, options.seed, remaining(), report);
  } finally {
    await pool.close();
    await server.close();
    report.elapsedMs = Math.round(performance.now() - started);
  }
  return report;
}

/** Makes the base request valid in the server's state: the group to update exists, the token is current. */
async function arrange(
  operation: OperationName,
  body: Record<string, unknown>,
  call: (...args: Parameters<typeof apiRequest>) => Promise<Answer>,
): Promise<Record<string, unknown>> {
  if (operation === 'getOrCreateUserGroup') return body;
  const id = operation === 'updateUserGroup' ? (body.user_group_id as string) : 'fuzz-rotation';
  const created = await call('getOrCreateUserGroup', { user_group_id: id, name: 'Fuzz' });
  if (created.status !== 200) throw new Error(`could not create ${id}: ${created.text}`);
  return operation === 'updateUserGroup' ? body : { ...body, current_token: userGroupOf(created).token };
}

function refusalProblems(method: string, path: string, answer: Answer, mutation: Mutation): string[] {
  const problems = judge(method, path, answer, mutation.status);
  if (answer.status >= 500) problems.unshift('a 5xx for a client mistake');
  if ((answer.body as { success?: unknown } | undefined)?.success !== 0) problems.push('success is not 0');
  if (errorCodeOf(answer) !== mutation.code)
    problems.push(`code ${String(errorCodeOf(answer))}, expected ${mutation.code}`);
  return problems;
}

async function check<T>(
  property: fc.IAsyncProperty<T>,
  numRuns: number,
  seed: number,
  timeLimitMs: number,
  report: FuzzReport,
): Promise<number> {
  const details = await fc.check(property, {
    numRuns,
    seed,
    interruptAfterTimeLimit: timeLimitMs,
    markInterruptAsFailure: false,
  });
  if (details.failed) report.failures.push(fc.defaultReportMessage(details) ?? 'failed');
  return details.numRuns;
}

/** One line of counts, printed by the test and by the soak. */
export const describeFuzz = (r: FuzzReport): string =>
  `fuzz (seed ${r.seed}): ${r.validRuns} valid runs, ${r.mutatedRuns} mutated runs, ${r.requests} requests, ` +
  `${r.failures.length} failing properties, ${(r.elapsedMs / 1000).toFixed(1)} s`;
