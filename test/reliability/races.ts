import { isDeepStrictEqual } from 'node:util';
import type { Group, MockServer } from '../../src/index.js';
import { type Answer, answerProblems, apiHeaders, apiRequest } from '../support/http.js';
import { race, rawRequest } from '../support/rawHttp.js';

export interface RaceOptions {
  readonly rounds: number;
  /** Concurrent get-or-create calls for one new id. */
  readonly creates: number;
  /** Concurrent rotations with one token. */
  readonly rotations: number;
  /** Concurrent full updates of one group. */
  readonly updates: number;
}

export interface RaceReport {
  rounds: number;
  requests: number;
  readonly violations: string[];
}

/** The fields a race reads from an answer (its shape is checked separately, against the document). */
type RaceBody = {
  readonly new_user_group?: unknown;
  readonly user_group?: { readonly token?: string; readonly name?: string; readonly properties?: unknown };
  readonly error?: { readonly code?: string };
};
const bodyOf = (r: Answer): RaceBody | undefined => r.body as RaceBody | undefined;

const toBytes = (operation: Parameters<typeof apiRequest>[0], body: unknown): Buffer => {
  const request = apiRequest(operation, body);
  return rawRequest(request.method, request.path, apiHeaders(), request.body);
};

/** What one race found: the requests it sent and what went wrong. */
export interface RaceOutcome {
  readonly requests: number;
  readonly violations: readonly string[];
}

/** Collects violations and checks every answer against the document. */
class Referee {
  requests = 0;
  readonly violations: string[] = [];

  fail(message: string): void {
    if (this.violations.length < 20) this.violations.push(message);
  }

  answers(method: string, responses: readonly Answer[]): void {
    this.requests += responses.length;
    for (const r of responses)
      for (const problem of answerProblems(method, '/api/user', r.status, r.body))
        this.fail(`${method} ${r.status}: ${problem}`);
  }
}

const stored = async (server: MockServer, id: string): Promise<Group[]> =>
  (await server.groups()).filter((g) => g.provided_id === id);
const freshId = (label: string): string => `race-${label}-Ünïcode-${process.hrtime.bigint()}`;

async function createGroup(server: MockServer, label: string): Promise<Group> {
  const id = freshId(label);
  await race(server.port, [toBytes('getOrCreateUserGroup', { user_group_id: id, name: 'Racer' })]);
  const group = (await stored(server, id))[0];
  if (group === undefined) throw new Error(`could not create ${id}`);
  return group;
}

/** `count` concurrent get-or-create calls of one new id: one group, exactly one `new_user_group: true`. */
export async function raceCreates(server: MockServer, count: number): Promise<RaceOutcome> {
  const referee = new Referee();
  const id = freshId('create');
  const creates = await race(
    server.port,
    Array.from({ length: count }, () =>
      toBytes('getOrCreateUserGroup', { user_group_id: id, name: 'Racer' }),
    ),
  );
  referee.answers('GET', creates);
  const created = creates.filter((r) => bodyOf(r)?.new_user_group === true);
  const tokens = new Set(creates.map((r) => bodyOf(r)?.user_group?.token));
  if (creates.some((r) => r.status !== 200))
    referee.fail(`statuses ${creates.map((r) => r.status).join(',')}`);
  if (created.length !== 1) referee.fail(`${created.length} answers said new_user_group: true`);
  if (tokens.size !== 1 || (await stored(server, id)).length !== 1)
    referee.fail(`${tokens.size} tokens handed out, ${(await stored(server, id)).length} groups stored`);
  return referee;
}

/** `count` concurrent rotations with one token: exactly one succeeds, the rest answer 404 TOKEN_NOT_FOUND. */
export async function raceRotations(server: MockServer, count: number): Promise<RaceOutcome> {
  const referee = new Referee();
  const group = await createGroup(server, 'rotate');
  const rotations = await race(
    server.port,
    Array.from({ length: count }, () => toBytes('rotateUserGroupToken', { current_token: group.token })),
  );
  referee.answers('POST', rotations);
  const winners = rotations.filter((r) => r.status === 200);
  const losers = rotations.filter((r) => r.status === 404 && bodyOf(r)?.error?.code === 'TOKEN_NOT_FOUND');
  if (winners.length !== 1 || losers.length !== rotations.length - 1)
    referee.fail(`${winners.length} rotations succeeded, ${losers.length} answered 404 TOKEN_NOT_FOUND`);
  const winner = winners[0];
  const current = (await stored(server, group.provided_id))[0]?.token;
  if (winner === undefined || current !== bodyOf(winner)?.user_group?.token)
    referee.fail(`the stored token ${current} is not the one the successful rotation handed out`);
  return referee;
}

/** `count` concurrent full updates of one group: the stored state is exactly one request's, applied last. */
export async function raceUpdates(server: MockServer, count: number): Promise<RaceOutcome> {
  const referee = new Referee();
  const group = await createGroup(server, 'update');
  const bodies = Array.from({ length: count }, (_, i) => ({
    name: `Writer ${i}`,
    mapping: { [String(i)]: `source-${i}` },
    properties: { writer: i, tags: [i, `${i}`], nested: { writer: i } },
  }));
  const updates = await race(
    server.port,
    bodies.map((body) => toBytes('updateUserGroup', { user_group_id: group.provided_id, ...body })),
  );
  referee.answers('PUT', updates);
  if (updates.some((r) => r.status !== 200))
    referee.fail(`statuses ${updates.map((r) => r.status).join(',')}`);
  const final = (await stored(server, group.provided_id))[0];
  const fields = { name: final?.name, mapping: final?.mapping, properties: final?.properties };
  const last = bodies.findIndex((body) => isDeepStrictEqual(body, fields));
  const answered = updates[last] === undefined ? undefined : bodyOf(updates[last] as Answer);
  if (last < 0) referee.fail(`the stored group mixes requests: ${JSON.stringify(fields)}`);
  else if (
    answered?.user_group?.name !== final?.name ||
    !isDeepStrictEqual(answered?.user_group?.properties, final?.properties)
  )
    referee.fail('the request applied last did not answer the stored state');
  return referee;
}

/** All three races, `rounds` times, against one server (the soak's form; the tests call each race alone). */
export async function runRaces(server: MockServer, options: RaceOptions): Promise<RaceReport> {
  const report: RaceReport = { rounds: 0, requests: 0, violations: [] };
  for (let round = 0; round < options.rounds && report.violations.length === 0; round++) {
    for (const outcome of [
      await raceCreates(server, options.creates),
      await raceRotations(server, options.rotations),
      await raceUpdates(server, options.updates),
    ]) {
      report.requests += outcome.requests;
      report.violations.push(...outcome.violations);
    }
    report.rounds++;
  }
  return report;
}
