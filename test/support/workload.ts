import { isDeepStrictEqual } from 'node:util';
import type { Dispatcher } from 'undici';
import type { Group } from '../../src/index.js';
import {
  type Answer,
  type ApiRequest,
  answerProblems,
  apiRequest,
  customerKey,
  errorCodeOf,
  isNewGroup,
  type OperationName,
  send,
  userGroupOf,
} from './http.js';
import type { Ledger } from './ledger.js';
import { mutations } from './mutations.js';
import type { Random } from './random.js';

export interface WorkloadOptions {
  /** Groups each client creates at most. */
  readonly groupsPerClient: number;
  /** Share of steps that send a broken request (which must be refused and change nothing). */
  readonly invalidShare: number;
  /** Disk-fault runs: a 500 INTERNAL_ERROR is an allowed answer, meaning "not applied". */
  readonly internalErrorsExpected?: boolean;
  readonly key?: string;
  readonly environment?: Group['environment'];
}

/** Counts over all clients of a run. */
export class WorkloadStats {
  requests = 0;
  invalid = 0;
  internalErrors = 0;
  readonly byStatus = new Map<number, number>();
  readonly byOperation = new Map<string, number>();
  readonly violations: string[] = [];

  count(operation: string, status: number): void {
    this.requests++;
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    this.byOperation.set(operation, (this.byOperation.get(operation) ?? 0) + 1);
  }

  fail(message: string): void {
    if (this.violations.length < 50) this.violations.push(message);
  }

  statuses(): string {
    return [...this.byStatus]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}:${n}`)
      .join(' ');
  }
}

const names = [
  'Customer A',
  'Ümlaut GmbH',
  '東京支店',
  'e\u0301cole',
  'école',
  'Team 🚀',
  'toString',
  '__proto__',
];
const idTails = ['', '-é', '-e\u0301', '-😀', '-constructor', '- space', '-"quoted"', '-\\slash'];

/**
 * One client of the workload: it owns its groups, sends one request at a time, and records each answer in the
 * shared ledger. Every answer is checked against the document and against what the ledger expects.
 */
export class ClientScript {
  #created = 0;
  readonly #ids: string[] = [];
  readonly #key: string;
  readonly #environment: Group['environment'];

  constructor(
    readonly name: string,
    private readonly ledger: Ledger,
    private readonly random: Random,
    private readonly stats: WorkloadStats,
    private readonly options: WorkloadOptions,
  ) {
    this.#key = options.key ?? customerKey;
    this.#environment = options.environment ?? 'Customer';
  }

  /** One request. Rejects when the connection fails (the ledger then holds the request as unanswered). */
  async step(dispatcher: Dispatcher): Promise<void> {
    const settled = this.#ids
      .map((id) => this.ledger.key(this.#environment, id))
      .filter((key) => this.ledger.confirmed(key) !== undefined && !this.ledger.hasPending(key));
    const target = settled.length === 0 ? undefined : this.random.pick(settled);
    // An id whose create was refused, or lost in a crash and found absent, is created again.
    const absent = this.#ids.find((id) => {
      const key = this.ledger.key(this.#environment, id);
      return this.ledger.confirmed(key) === undefined && !this.ledger.hasPending(key);
    });
    const canCreate = absent !== undefined || this.#created < this.options.groupsPerClient;
    if (target !== undefined && this.random.chance(this.options.invalidShare))
      return this.#invalid(dispatcher, target);
    const kind =
      target === undefined
        ? 'create'
        : this.random.weighted({ create: canCreate ? 2 : 0, read: 1, update: 4, rotate: 3 });
    if (kind === 'create' || target === undefined) {
      if (canCreate) return this.#create(dispatcher, absent);
      // Nothing to do (cannot happen with one request at a time); yield so that a loop of steps never spins.
      return new Promise((resolve) => setImmediate(resolve));
    }
    const group = this.ledger.confirmed(target) as Group;
    if (kind === 'read') return this.#read(dispatcher, group);
    if (kind === 'update') return this.#update(dispatcher, target, group);
    return this.#rotate(dispatcher, target, group);
  }

  async #exchange(
    dispatcher: Dispatcher,
    operation: OperationName,
    key: string | undefined,
    request: ApiRequest,
  ): Promise<Answer> {
    try {
      const answer = await send(dispatcher, request);
      this.stats.count(operation, answer.status);
      for (const problem of answerProblems(request.method, request.path, answer.status, answer.body))
        this.stats.fail(`${this.name} ${request.method} ${answer.status}: ${problem}`);
      return answer;
    } catch (error) {
      if (key !== undefined) this.ledger.lose();
      throw error;
    }
  }

  async #create(dispatcher: Dispatcher, again?: string): Promise<void> {
    const id = again ?? `${this.name}-${this.#created++}${this.random.pick(idTails)}`;
    if (again === undefined) this.#ids.push(id);
    const key = this.ledger.key(this.#environment, id);
    const fields = {
      name: this.random.pick(names),
      mapping: this.#mapping(),
      properties: this.#properties(),
    };
    const body = { user_group_id: id, name: fields.name, ...dropNull(fields) };
    this.ledger.begin(key, { kind: 'create', ...fields });
    const answer = await this.#exchange(
      dispatcher,
      'getOrCreateUserGroup',
      key,
      apiRequest('getOrCreateUserGroup', body, this.#key),
    );
    if (answer.status !== 200) return this.#unexpected(key, 'create', answer);
    const group = userGroupOf(answer);
    const state: Group = {
      environment: this.#environment,
      team_id: Number(group.team_id),
      token: String(group.token),
      provided_id: id,
      ...fields,
    };
    if (isNewGroup(answer) !== true) this.stats.fail(`${key}: create answered new_user_group false`);
    this.#expectEcho(key, group, state);
    this.#note(this.ledger.acknowledge(key, state));
  }

  async #read(dispatcher: Dispatcher, group: Group): Promise<void> {
    const body = { user_group_id: group.provided_id, name: group.name };
    const answer = await this.#exchange(
      dispatcher,
      'getOrCreateUserGroup',
      undefined,
      apiRequest('getOrCreateUserGroup', body, this.#key),
    );
    const key = this.ledger.key(group.environment, group.provided_id);
    if (answer.status !== 200) return this.#unexpected(undefined, 'read', answer);
    if (isNewGroup(answer) !== false) this.stats.fail(`${key}: reading a known group created it again`);
    this.#expectEcho(key, userGroupOf(answer), group);
  }

  async #update(dispatcher: Dispatcher, key: string, group: Group): Promise<void> {
    const patch: { name?: string; mapping?: Group['mapping']; properties?: Group['properties'] } = {};
    while (Object.keys(patch).length === 0) {
      if (this.random.chance(0.5)) patch.name = `${this.random.pick(names)} ${this.random.int(0, 999)}`;
      if (this.random.chance(0.4)) patch.mapping = this.#mapping() ?? {};
      if (this.random.chance(0.4)) patch.properties = this.#properties() ?? {};
    }
    this.ledger.begin(key, { kind: 'update', patch });
    const body = { user_group_id: group.provided_id, ...patch };
    const answer = await this.#exchange(
      dispatcher,
      'updateUserGroup',
      key,
      apiRequest('updateUserGroup', body, this.#key),
    );
    if (answer.status !== 200) return this.#unexpected(key, 'update', answer);
    const state: Group = { ...group, ...patch };
    this.#expectEcho(key, userGroupOf(answer), state);
    this.#note(this.ledger.acknowledge(key, state));
  }

  async #rotate(dispatcher: Dispatcher, key: string, group: Group): Promise<void> {
    this.ledger.begin(key, { kind: 'rotate' });
    const body = { current_token: group.token };
    const answer = await this.#exchange(
      dispatcher,
      'rotateUserGroupToken',
      key,
      apiRequest('rotateUserGroupToken', body, this.#key),
    );
    if (answer.status !== 200) return this.#unexpected(key, 'rotate', answer);
    const state: Group = { ...group, token: String(userGroupOf(answer).token) };
    if (state.token === group.token) this.stats.fail(`${key}: rotation kept the token`);
    this.#expectEcho(key, userGroupOf(answer), state);
    this.#note(this.ledger.acknowledge(key, state));
  }

  /** A broken request against one of this client's groups: refused as documented, and nothing changes. */
  async #invalid(dispatcher: Dispatcher, key: string): Promise<void> {
    const group = this.ledger.confirmed(key) as Group;
    const operation = this.random.pick<OperationName>([
      'getOrCreateUserGroup',
      'updateUserGroup',
      'rotateUserGroupToken',
    ]);
    const body =
      operation === 'rotateUserGroupToken'
        ? { current_token: group.token }
        : operation === 'updateUserGroup'
          ? { user_group_id: group.provided_id, name: 'must not be stored' }
          : { user_group_id: `${this.name}-never-${this.random.int(0, 1e9)}`, name: 'must not be created' };
    const mutation = this.random.pick(mutations);
    const request = mutation.apply({ operation, body, key: this.#key }, this.random);
    this.stats.invalid++;
    const answer = await this.#exchange(dispatcher, operation, undefined, request);
    if (answer.status !== mutation.status || errorCodeOf(answer) !== mutation.code)
      this.stats.fail(
        `${mutation.name} (${operation}) answered ${answer.status} ${errorCodeOf(answer)}, expected ${mutation.status} ${mutation.code}`,
      );
  }

  #unexpected(key: string | undefined, what: string, answer: Answer): void {
    if (key !== undefined) this.ledger.reject(key);
    if (
      answer.status === 500 &&
      errorCodeOf(answer) === 'INTERNAL_ERROR' &&
      this.options.internalErrorsExpected
    ) {
      this.stats.internalErrors++;
      return;
    }
    this.stats.fail(`${this.name} ${what} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  }

  /** The group in an answer must be the state the ledger now expects (in the fields the answer carries). */
  #expectEcho(key: string, echoed: Readonly<Record<string, unknown>>, state: Group): void {
    for (const field of ['team_id', 'token', 'name', 'provided_id', 'properties'] as const) {
      if (field in echoed && !isDeepStrictEqual(echoed[field], state[field]))
        this.stats.fail(
          `${key}: answer has ${field} ${JSON.stringify(echoed[field])}, expected ${JSON.stringify(state[field])}`,
        );
    }
  }

  #note(violation: string | undefined): void {
    if (violation !== undefined) this.stats.fail(violation);
  }

  #mapping(): Group['mapping'] {
    if (this.random.chance(0.4)) return null;
    return Object.fromEntries(
      Array.from({ length: this.random.int(0, 3) }, () => [
        String(this.random.int(1, 500)),
        String(this.random.int(1, 500)),
      ]),
    );
  }

  #properties(): Group['properties'] {
    if (this.random.chance(0.3)) return null;
    return {
      region: this.random.pick(['EU', 'US', 'APAC', 'Ωmega']),
      seats: this.random.int(0, 10_000),
      ratio: this.random.next(),
      ...(this.random.chance(0.3)
        ? { nested: { tags: ['a', 'ü', '😀'], on: this.random.chance(0.5), none: null } }
        : {}),
    };
  }
}

/** `mapping` and `properties` only when set, as a client that omits empty fields would send them. */
const dropNull = (
  fields: Pick<Group, 'mapping' | 'properties'>,
): Partial<Pick<Group, 'mapping' | 'properties'>> => ({
  ...(fields.mapping === null ? {} : { mapping: fields.mapping }),
  ...(fields.properties === null ? {} : { properties: fields.properties }),
});
