import { LRUCache } from 'lru-cache';
import { applyChanges } from '../domain/changes.js';
import { handle } from '../domain/handlers.js';
import type { IdSource } from '../domain/ids.js';
import {
  type Environment,
  emptyWorld,
  type Group,
  groupKey,
  type Tenant,
  type World,
} from '../domain/model.js';
import { statusOf } from '../errors.js';
import type { OperationId } from '../spec/operations.js';
import { Bijection } from './bijection.js';
import { compareAnswer, type Expected, type Knowledge, type Relation, reuse } from './compareAnswer.js';
import { type Divergence, divergence } from './divergences.js';
import { field, isRecord, text } from './json.js';

/** What the model is told of one exchange: the operation, the request body, and the provider's answer. */
export interface Exchange {
  readonly operationId: OperationId;
  readonly requestBody: unknown;
  readonly status: number;
  readonly responseBody: unknown;
}

/** The model's verdict on one exchange: the divergences, and the answer the service must have given. */
export interface Verdict {
  readonly divergences: readonly Divergence[];
  /** The expected answer, tokens and team ids in the provider's values where known (`‹a new token›` where not). */
  readonly expected: { readonly status: number; readonly body: unknown } | undefined;
}

export interface ReferenceModelOptions {
  /**
   * `complete`: the model has seen every call made to the groups it is asked about (conform, whose ids are its
   * own), so it judges them all. `learning`: what it first sees of a group (the proxy's traffic, of a service
   * that ran before) is learnt, not judged, and API keys are told apart (each its own namespace).
   */
  readonly knowledge: Knowledge;
  /** The environment of API keys known up front (by the scope the caller names them with). */
  readonly environments?: ReadonlyMap<string, Environment>;
  /** Groups remembered; past it the least recently used are forgotten. Default 10,000. */
  readonly capacity?: number;
}

/** A remembered group's history: its value before its last change, and which fields no answer has shown yet. */
interface Memory {
  earlier: Group | undefined;
  propertiesUnknown: boolean;
}

const oneTenant = 'default';

/**
 * The reference model: the service's own rules (src/domain) over a shadow world, asked what the service must
 * answer to each call and compared, field by field, with what a provider answered. Provider tokens and team ids
 * are random: each is mapped to the model's by a bijection, so a token that changes, comes back, or belongs to
 * another group is a divergence and a fresh one is not. The conform command and the proxy both judge with it.
 */
export class ReferenceModel {
  readonly #knowledge: Knowledge;
  readonly #capacity: number;
  readonly #declared: ReadonlyMap<string, Environment>;
  readonly #learnt: LRUCache<string, Environment>;
  readonly #world: World = emptyWorld();
  readonly #tokens: Bijection<string, string>;
  readonly #teams: Bijection<number, number>;
  readonly #groups: LRUCache<string, Memory>;
  /** The group (by ref) of each model team id in the world. */
  readonly #teamRefs = new Map<number, string>();
  #counter = 0;
  readonly #ids: IdSource = {
    token: () => `model-token-${this.#counter++}`,
    tenantId: () => `model-tenant-${this.#counter++}`,
    apiKey: () => `model-key-${this.#counter++}`,
  };

  constructor(options: ReferenceModelOptions) {
    this.#knowledge = options.knowledge;
    this.#capacity = options.capacity ?? 10_000;
    this.#declared = options.environments ?? new Map();
    this.#learnt = new LRUCache({ max: this.#capacity });
    this.#tokens = new Bijection(this.#capacity * 4);
    this.#teams = new Bijection(this.#capacity * 2);
    this.#groups = new LRUCache<string, Memory>({
      max: this.#capacity,
      dispose: (_memory, ref, reason) => {
        if (reason === 'evict') this.#drop(ref);
      },
    });
  }

  /** The environment of the key `scope`: declared, else learnt from its answers (`api_environment_tag`), if any. */
  environmentOf(scope: string): Environment | undefined {
    return this.#declared.get(scope) ?? this.#learnt.get(scope);
  }

  /** The provider's divergences in one exchange through the key `scope`; the model then moves on. */
  judge(
    operationId: OperationId,
    request: unknown,
    status: number,
    answer: unknown,
    scope: string,
  ): Divergence[] {
    return this.verdict({ operationId, requestBody: request, status, responseBody: answer }, scope)
      .divergences as Divergence[];
  }

  /** The verdict on one exchange through the key `scope`: divergences and the expected answer. */
  verdict(exchange: Exchange, scope: string): Verdict {
    const verdict = this.#verdict(exchange, scope);
    // A key's namespace lives as long as it holds a group (the learnt environment has its own bound).
    if (this.#knowledge === 'learning' && this.#world.tenants.get(scope)?.groups.size === 0)
      this.#world.tenants.delete(scope);
    return verdict;
  }

  #verdict(exchange: Exchange, scope: string): Verdict {
    const { operationId: op, requestBody: request, status, responseBody } = exchange;
    if (!wellFormed(op, request)) return { divergences: [], expected: undefined };
    const caller = this.#caller(scope);
    const learning = this.#knowledge === 'learning';
    const body =
      op === 'rotateUserGroupToken'
        ? { current_token: this.#modelToken(text(field(request, 'current_token'))) }
        : request;
    const id = text(field(request, 'user_group_id'));
    const before = id === undefined ? undefined : caller.tenant.groups.get(groupKey(caller.environment, id));
    const ref = before === undefined ? undefined : refOf(caller.tenant.id, before);
    const memory = ref === undefined ? undefined : this.#groups.get(ref);
    const decided = handle(op, this.#world, caller, body, this.#ids);
    const answered =
      status === 200 && field(responseBody, 'success') === 1 && isRecord(field(responseBody, 'user_group'));
    const expected: Expected = decided.ok
      ? { status: 200, body: decided.value.body }
      : { status: statusOf(decided.error), body: undefined };
    const shown = { status: expected.status, body: this.#shown(expected.body) };
    const found: Divergence[] = [];
    this.#checkEnvironment(scope, caller, responseBody, answered, found);

    if (!decided.ok) {
      if (!answered) {
        if (!learning && status !== expected.status)
          found.push(
            divergence(
              'PROVIDER_STATUS_DIFFERS',
              '/status',
              `answered ${status} where the service must answer ${expected.status}`,
            ),
          );
        return { divergences: found, expected: shown };
      }
      const refused = this.#whyRefused(op, request, caller, scope);
      if (refused === undefined) {
        this.#learn(op, request, responseBody, caller, scope, found);
        return { divergences: found, expected: shown };
      }
      found.push(refused);
      if (learning) this.#learn(op, request, responseBody, caller, scope, found);
      return { divergences: found, expected: shown };
    }

    if (!answered) {
      if (learning && (status === 429 || status >= 500 || status === 401 || status === 403))
        return { divergences: found, expected: shown };
      const what =
        op === 'getOrCreateUserGroup'
          ? 'a get-or-create'
          : op === 'updateUserGroup'
            ? 'an update of a known id'
            : "a rotation of the group's current token";
      found.push(divergence('PROVIDER_CALL_REFUSED', '/status', `answered ${status} to ${what}`));
      if (learning && ref !== undefined) this.#forget(ref);
      return { divergences: found, expected: shown };
    }

    const shownId = text(field(field(responseBody, 'user_group'), 'provided_id'));
    const compared = compareAnswer({
      op,
      request,
      expected: decided.value.body,
      answer: responseBody,
      before,
      earlier: memory?.earlier,
      propertiesUnknown: memory?.propertiesUnknown ?? false,
      knowledge: this.#knowledge,
      tokens: this.#tokens,
      teams: this.#teams,
      tokenHolder: (model) => this.#relation(this.#refOfToken(model), shownId, caller, scope),
      teamHolder: (model) => this.#relation(this.#teamRefs.get(model), shownId, caller, scope),
    });
    if (compared.learn) {
      // A group that existed before the model saw it (the proxy started after it was made).
      this.#learn(op, request, responseBody, caller, scope, found);
      return { divergences: found, expected: shown };
    }
    found.push(...compared.divergences);
    if (learning && found.length > 0) {
      // Judged once: from here on the model follows what the provider now holds.
      if (ref !== undefined) this.#forget(ref);
      this.#learn(op, request, responseBody, caller, scope, []);
      return { divergences: found, expected: shown };
    }
    this.#apply(decided.value.changes, caller, before, memory, compared.binds);
    return { divergences: found, expected: shown };
  }

  /**
   * An exchange the rules do not judge, because its request broke the contract (the proxy judges only valid
   * requests): a success that shows a group is taken as the service answered it, as a group first seen is, so that
   * what the service did with the request (an update with a field the document does not have, kept) is not blamed
   * on the exchanges after it. Only when learning: conform sends no such request.
   */
  follow(operationId: OperationId, request: unknown, status: number, answer: unknown, scope: string): void {
    if (this.#knowledge !== 'learning') return;
    if (status !== 200 || field(answer, 'success') !== 1 || !isRecord(field(answer, 'user_group'))) return;
    this.#learn(operationId, request, answer, this.#caller(scope), scope, []);
  }

  /** Forgets every group, token, team id and learnt environment. */
  clear(): void {
    this.#groups.clear();
    for (const tenant of this.#world.tenants.values()) tenant.groups.clear();
    this.#world.tokens.clear();
    this.#tokens.clear();
    this.#teams.clear();
    this.#teamRefs.clear();
    this.#learnt.clear();
  }

  #caller(scope: string): { tenant: Tenant; environment: Environment } {
    if (this.#knowledge === 'complete') {
      const environment = this.#declared.get(scope);
      if (environment === undefined)
        throw new Error(`user-group-mock: the model has no environment for key ${scope}`);
      return { tenant: this.#world.tenants.get(oneTenant) as Tenant, environment };
    }
    let tenant = this.#world.tenants.get(scope);
    if (tenant === undefined) {
      tenant = { id: scope, keys: null, groups: new Map() };
      this.#world.tenants.set(scope, tenant);
    }
    // Each key is a namespace of its own; its real environment is kept apart (environmentOf).
    return { tenant, environment: 'Customer' };
  }

  /** The model's token for a provider token: the paired one, else one no group holds (the service answers 404). */
  #modelToken(provider: string | undefined): string {
    if (provider === undefined) return 'unknown';
    return this.#tokens.modelOf(provider) ?? `unknown:${provider}`;
  }

  /** Checks `api_environment_tag` against the key's environment, learning it on first sight. */
  #checkEnvironment(
    scope: string,
    caller: { environment: Environment },
    answer: unknown,
    answered: boolean,
    found: Divergence[],
  ): void {
    const tag = field(field(answer, 'user_group'), 'api_environment_tag');
    if (!answered || (tag !== 'Customer' && tag !== 'Testing')) return;
    const known = this.#knowledge === 'complete' ? caller.environment : this.environmentOf(scope);
    if (known === undefined) this.#learnt.set(scope, tag);
    if (known === undefined || known === tag) return;
    found.push(
      divergence(
        'PROVIDER_ENVIRONMENT_CHANGED',
        '/body/user_group/api_environment_tag',
        `answered api_environment_tag ${tag} to a key of the ${known} environment`,
      ),
    );
  }

  /**
   * Why a success the model would have refused is the provider's fault, or undefined when the model lacked the
   * knowledge to refuse it (learning: a group or token it has not seen).
   */
  #whyRefused(
    op: OperationId,
    request: unknown,
    caller: { tenant: Tenant; environment: Environment },
    scope: string,
  ): Divergence | undefined {
    const learning = this.#knowledge === 'learning';
    if (op === 'updateUserGroup') {
      if (learning) return undefined;
      const id = text(field(request, 'user_group_id')) ?? '';
      const other = caller.environment === 'Customer' ? 'Testing' : 'Customer';
      return caller.tenant.groups.has(groupKey(other, id))
        ? divergence(
            'PROVIDER_ENVIRONMENT_CROSSED',
            '/status',
            `answered 200 to an update of "${id}" through a ${caller.environment} key, where only the ${other} environment has that id`,
          )
        : divergence(
            'PROVIDER_UNKNOWN_GROUP_UPDATED',
            '/status',
            `answered 200 to an update of "${id}", an id never created in ${caller.environment}`,
          );
    }
    const current = text(field(request, 'current_token')) ?? '';
    const model = this.#tokens.modelOf(current);
    if (model === undefined)
      return learning
        ? undefined
        : divergence(
            'PROVIDER_UNKNOWN_TOKEN_ROTATED',
            '/status',
            'answered 200 to a rotation of a token the service never issued',
          );
    const holder = this.#world.tokens.get(model);
    if (holder === undefined)
      return divergence(
        'PROVIDER_ROTATED_TOKEN_ACCEPTED',
        '/status',
        'answered 200 to a rotation whose current_token an earlier rotation replaced',
      );
    const group = this.#world.tenants.get(holder.tenant)?.groups.get(holder.key);
    if (group === undefined) return undefined;
    const theirs = learning ? this.environmentOf(holder.tenant) : group.environment;
    const ours = learning ? this.environmentOf(scope) : caller.environment;
    if (theirs !== undefined && ours !== undefined && theirs !== ours)
      return divergence(
        'PROVIDER_ENVIRONMENT_CROSSED',
        '/status',
        `answered 200 to a rotation, through a ${ours} key, of the token of group "${group.provided_id}" in ${theirs}`,
      );
    return undefined; // Learning: two keys of one environment may share their groups.
  }

  /**
   * Who holds (or held) a model token, as seen from the caller: `retired` when no group holds it now, `other` when
   * a group of another environment does, `ambiguous` when another key's group of an unknown or the same
   * environment does (the proxy cannot tell two keys of one tenant apart), `group` otherwise.
   */
  #relation(
    ref: string | undefined,
    id: string | undefined,
    caller: { tenant: Tenant; environment: Environment },
    scope: string,
  ): Relation {
    const [tenantId = '', key = ''] = ref === undefined ? [] : splitRef(ref);
    const group = this.#world.tenants.get(tenantId)?.groups.get(key);
    if (ref === undefined || group === undefined) return { kind: 'retired' };
    if (this.#knowledge === 'complete')
      return group.environment === caller.environment ? { kind: 'group', group } : { kind: 'other', group };
    if (tenantId === caller.tenant.id || group.provided_id !== id) return { kind: 'group', group };
    const theirs = this.environmentOf(tenantId);
    const ours = this.environmentOf(scope);
    return theirs !== undefined && ours !== undefined && theirs !== ours
      ? { kind: 'other', group }
      : { kind: 'ambiguous', forget: () => this.#forget(ref) };
  }

  #refOfToken(model: string): string | undefined {
    const holder = this.#world.tokens.get(model);
    return holder === undefined ? undefined : `${holder.tenant}\u0001${holder.key}`;
  }

  /** Applies the model's decision, then pairs the new model tokens and team ids with the provider's. */
  #apply(
    changes: Parameters<typeof applyChanges>[1],
    caller: { tenant: Tenant },
    before: Group | undefined,
    memory: Memory | undefined,
    binds: readonly (() => void)[],
  ): void {
    this.#world.tenants.set(caller.tenant.id, caller.tenant); // forgetting its last group removed it
    applyChanges(this.#world, changes);
    for (const bind of binds) bind();
    for (const change of changes) {
      if (change.op !== 'putGroup') continue;
      const ref = refOf(caller.tenant.id, change.group);
      this.#teamRefs.set(change.group.team_id, ref);
      const changed =
        before !== undefined &&
        (before.name !== change.group.name || before.properties !== change.group.properties);
      this.#groups.set(ref, {
        earlier: changed ? before : memory?.earlier,
        propertiesUnknown:
          (memory?.propertiesUnknown ?? false) && change.group.properties === before?.properties,
      });
    }
  }

  /** Takes a group as the provider answered it (first sight, or after a divergence), pairing its token and team id. */
  #learn(
    op: OperationId,
    request: unknown,
    answer: unknown,
    caller: { tenant: Tenant; environment: Environment },
    scope: string,
    found: Divergence[],
  ): void {
    const shown = field(answer, 'user_group');
    const token = text(field(shown, 'token'));
    const teamId = field(shown, 'team_id');
    const id = text(field(shown, 'provided_id')) ?? text(field(request, 'user_group_id'));
    if (token === undefined || id === undefined || !Number.isSafeInteger(teamId)) return;
    if (op === 'rotateUserGroupToken') {
      const current = text(field(request, 'current_token'));
      if (current === token)
        found.push(
          divergence(
            'PROVIDER_TOKEN_NOT_ROTATED',
            '/body/user_group/token',
            'answered the current_token sent as the new token',
          ),
        );
      else if (current !== undefined) {
        const held = this.#tokens.modelOf(current);
        const holder = held === undefined ? undefined : this.#world.tokens.get(held);
        const group =
          holder === undefined ? undefined : this.#world.tenants.get(holder.tenant)?.groups.get(holder.key);
        if (holder !== undefined && group !== undefined) this.#forget(refOf(holder.tenant, group));
        this.#tokens.bind(this.#ids.token(), current); // retired: a later use of it is judged
      }
    }
    const known = caller.tenant.groups.get(groupKey(caller.environment, id));
    if (known !== undefined) this.#forget(refOf(caller.tenant.id, known));
    // A group first seen may not hold what another group holds or held: judged, then the other is forgotten.
    const holders = [
      { what: 'token' as const, path: '/body/user_group/token' },
      { what: 'team_id' as const, path: '/body/user_group/team_id' },
    ];
    for (const { what, path } of holders) {
      // Looked up in turn: forgetting the token's holder may have forgotten the team id's.
      const model = what === 'token' ? this.#tokens.modelOf(token) : this.#teams.modelOf(teamId as number);
      if (model === undefined) continue;
      const ref = typeof model === 'string' ? this.#refOfToken(model) : this.#teamRefs.get(model);
      const relation = this.#relation(ref, id, caller, scope);
      const judged = relation.kind === 'ambiguous' ? undefined : reuse(relation, what, path);
      if (judged !== undefined) found.push(judged);
      if (ref !== undefined) this.#forget(ref);
      if (typeof model === 'string') this.#tokens.forgetModel(model);
      else this.#teams.forgetModel(model);
    }
    const properties = field(shown, 'properties');
    const group: Group = {
      environment: caller.environment,
      team_id: this.#world.nextTeamId,
      token: this.#ids.token(),
      name: text(field(shown, 'name')) ?? text(field(request, 'name')) ?? '',
      provided_id: id,
      mapping: null,
      properties: isRecord(properties) ? properties : null,
    };
    this.#world.tenants.set(caller.tenant.id, caller.tenant); // forgetting its last group above removed it
    applyChanges(this.#world, [{ op: 'putGroup', tenant: caller.tenant.id, group }]);
    this.#tokens.bind(group.token, token);
    this.#teams.bind(group.team_id, teamId as number);
    this.#teamRefs.set(group.team_id, refOf(caller.tenant.id, group));
    this.#groups.set(refOf(caller.tenant.id, group), {
      earlier: undefined,
      propertiesUnknown: !(isRecord(shown) && 'properties' in shown),
    });
  }

  /** Forgets one group: its entry, its token's and team id's pairs. */
  #forget(ref: string): void {
    this.#groups.delete(ref);
    this.#drop(ref);
  }

  #drop(ref: string): void {
    const [tenantId = '', key = ''] = splitRef(ref);
    const tenant = this.#world.tenants.get(tenantId);
    const group = tenant?.groups.get(key);
    if (tenant === undefined || group === undefined) return;
    tenant.groups.delete(key);
    this.#world.tokens.delete(group.token);
    this.#tokens.forgetModel(group.token);
    this.#teams.forgetModel(group.team_id);
    this.#teamRefs.delete(group.team_id);
    if (tenant.groups.size === 0 && tenant.id !== oneTenant) this.#world.tenants.delete(tenant.id);
  }

  /** The expected body with the provider's values for paired tokens and team ids. */
  #shown(body: unknown): unknown {
    const group = field(body, 'user_group');
    if (!isRecord(body) || !isRecord(group)) return body;
    const token = text(group.token);
    const teamId = group.team_id as number;
    return {
      ...body,
      user_group: {
        ...group,
        token: (token === undefined ? undefined : this.#tokens.providerOf(token)) ?? '‹a new token›',
        team_id: this.#teams.providerOf(teamId) ?? '‹a new team_id›',
      },
    };
  }
}

const refOf = (tenant: string, group: Group): string =>
  `${tenant}\u0001${groupKey(group.environment, group.provided_id)}`;
const splitRef = (ref: string): string[] => {
  const at = ref.indexOf('\u0001');
  return [ref.slice(0, at), ref.slice(at + 1)];
};

/** Whether a request body has what the rules read (the proxy judges only requests the schema let through). */
function wellFormed(op: OperationId, request: unknown): boolean {
  if (!isRecord(request)) return false;
  if (op === 'rotateUserGroupToken') return typeof request.current_token === 'string';
  if (typeof request.user_group_id !== 'string') return false;
  return op === 'updateUserGroup' || typeof request.name === 'string';
}
