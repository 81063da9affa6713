import type { Group } from '../domain/model.js';
import type { OperationId } from '../spec/operations.js';
import type { Bijection } from './bijection.js';
import { type Divergence, divergence } from './divergences.js';
import { field, isRecord, jsonEqual, text } from './json.js';

/** See ReferenceModelOptions.knowledge. */
export type Knowledge = 'complete' | 'learning';

/** What the service must answer: the status, and the body of a success (model tokens and team ids in it). */
export interface Expected {
  readonly status: number;
  readonly body: unknown;
}

/**
 * How a provider value already paired with another model value stands to the caller: that value is the caller's
 * own group's (`group`), a group's of another environment (`other`), no group's now (`retired`: rotated away), or
 * another key's group of an environment the model does not know apart from the caller's (`ambiguous`: two keys of
 * one tenant may share groups, so the model forgets that group rather than judge).
 */
export type Relation =
  | { readonly kind: 'group' | 'other'; readonly group: Group }
  | { readonly kind: 'retired' }
  | { readonly kind: 'ambiguous'; readonly forget: () => void };

export interface Comparison {
  readonly op: OperationId;
  readonly request: unknown;
  /** The body the model answers (a success's). */
  readonly expected: unknown;
  readonly answer: unknown;
  /** The group as the model held it before this call, if it held one. */
  readonly before: Group | undefined;
  /** The group before its last change. */
  readonly earlier: Group | undefined;
  readonly propertiesUnknown: boolean;
  readonly knowledge: Knowledge;
  readonly tokens: Bijection<string, string>;
  readonly teams: Bijection<number, number>;
  readonly tokenHolder: (model: string) => Relation;
  readonly teamHolder: (model: number) => Relation;
}

export interface Compared {
  readonly divergences: Divergence[];
  /** The pairs of new model values with the provider's, to make once the model applies its decision. */
  readonly binds: (() => void)[];
  /** The answer shows a group the model has not seen (learning): take it as it is, judge nothing of it. */
  readonly learn: boolean;
}

const quoted = (value: unknown): string => {
  const json = JSON.stringify(value) ?? 'nothing';
  return json.length > 80 ? `${json.slice(0, 77)}…` : json;
};

/** A success answer compared field by field with the model's, through the pairs of tokens and team ids. */
export function compareAnswer(c: Comparison): Compared {
  const found: Divergence[] = [];
  const binds: (() => void)[] = [];
  const expected = field(c.expected, 'user_group');
  const actual = field(c.answer, 'user_group');
  const at = (name: string): string => `/body/user_group/${name}`;

  if (c.op === 'getOrCreateUserGroup') {
    const isNew = field(c.expected, 'new_user_group');
    const said = field(c.answer, 'new_user_group');
    if (isNew === true && said === false) {
      if (c.knowledge === 'learning') return { divergences: found, binds, learn: true };
      found.push(
        divergence(
          'PROVIDER_GROUP_NOT_NEW',
          '/body/new_user_group',
          `answered new_user_group false to the first get-or-create of "${text(field(c.request, 'user_group_id'))}"`,
        ),
      );
    }
    if (isNew === false && said === true)
      found.push(
        divergence(
          'PROVIDER_GROUP_CREATED_AGAIN',
          '/body/new_user_group',
          `answered new_user_group true to a get-or-create of "${c.before?.provided_id}", which exists`,
        ),
      );
  }

  const id = field(actual, 'provided_id');
  if (typeof id === 'string' && id !== field(expected, 'provided_id'))
    found.push(
      divergence(
        'PROVIDER_ID_NOT_ECHOED',
        at('provided_id'),
        `answered provided_id ${quoted(id)} where the service must answer ${quoted(field(expected, 'provided_id'))}`,
      ),
    );

  // An answer that shows what the group held before its last update is that update not kept, even when the
  // get-or-create sent the same value again (a client sending its original name on every read).
  const stale = c.op === 'updateUserGroup' ? c.before : c.earlier;
  const byGet = c.op === 'getOrCreateUserGroup' && c.before !== undefined;
  const updated = c.op === 'updateUserGroup' ? 'this update' : 'the last update';
  const name = field(actual, 'name');
  const expectedName = field(expected, 'name');
  if (typeof name === 'string' && name !== expectedName) {
    const said = (shown = '', want = '') =>
      `answered name ${quoted(name)}${shown} where the service must answer ${quoted(expectedName)}${want}`;
    if (stale !== undefined && name === stale.name)
      found.push(
        divergence(
          'PROVIDER_UPDATE_NOT_KEPT',
          at('name'),
          said(`, the name before ${updated},`, `, the name ${updated} set`),
        ),
      );
    else if (byGet && name === field(c.request, 'name'))
      found.push(
        divergence(
          'PROVIDER_GROUP_CHANGED_BY_GET',
          at('name'),
          said(', the name this get-or-create sent,', ', the stored name'),
        ),
      );
    else found.push(divergence('PROVIDER_FIELD_DIFFERS', at('name'), said()));
  }

  if (isRecord(actual) && 'properties' in actual && !c.propertiesUnknown) {
    const shown = actual.properties;
    const want = field(expected, 'properties');
    if (!jsonEqual(shown, want)) {
      const said = (what = '', wanted = '') =>
        `answered properties ${quoted(shown)}${what} where the service must answer ${quoted(want)}${wanted}`;
      const sent = field(c.request, 'properties');
      const base = c.op === 'updateUserGroup' ? c.before?.properties : c.earlier?.properties;
      if (isRecord(base) && isRecord(want) && jsonEqual(shown, { ...base, ...want }))
        found.push(
          divergence(
            'PROVIDER_PROPERTIES_MERGED',
            at('properties'),
            `${said()}: the earlier properties merged with the new ones`,
          ),
        );
      else if (stale !== undefined && jsonEqual(shown, stale.properties))
        found.push(
          divergence(
            'PROVIDER_UPDATE_NOT_KEPT',
            at('properties'),
            said(`, the properties before ${updated},`, `, the properties ${updated} set`),
          ),
        );
      else if (byGet && sent !== undefined && jsonEqual(shown, sent))
        found.push(
          divergence(
            'PROVIDER_GROUP_CHANGED_BY_GET',
            at('properties'),
            said(', the properties this get-or-create sent,', ', the stored properties'),
          ),
        );
      else found.push(divergence('PROVIDER_FIELD_DIFFERS', at('properties'), said()));
    }
  }

  const current = text(field(c.request, 'current_token'));
  const token = text(field(actual, 'token'));
  const modelToken = text(field(expected, 'token'));
  if (token !== undefined && modelToken !== undefined) {
    const paired = c.tokens.providerOf(modelToken);
    if (paired !== undefined) {
      if (token !== paired) {
        const call = `${c.op === 'updateUserGroup' ? 'an update' : 'a get-or-create'} of "${c.before?.provided_id}"`;
        const owner = c.tokens.modelOf(token);
        const rotatedAway = owner !== undefined && c.tokenHolder(owner).kind === 'retired';
        found.push(
          divergence(
            'PROVIDER_TOKEN_CHANGED',
            at('token'),
            rotatedAway
              ? `${call} answered a token a rotation answered 200 replaced, where the group holds the token that rotation answered: the rotation was not kept`
              : `${call} answered another token than the group holds`,
          ),
        );
      }
    } else if (c.op === 'rotateUserGroupToken' && token === current) {
      found.push(
        divergence(
          'PROVIDER_TOKEN_NOT_ROTATED',
          at('token'),
          'answered the current_token sent as the new token',
        ),
      );
    } else {
      const owner = c.tokens.modelOf(token);
      const relation = owner === undefined ? undefined : c.tokenHolder(owner);
      const reused = relation === undefined ? undefined : reuse(relation, 'token', at('token'));
      if (reused !== undefined) found.push(reused);
      else binds.push(() => c.tokens.bind(modelToken, token));
    }
  }

  const team = field(actual, 'team_id');
  const modelTeam = field(expected, 'team_id');
  if (Number.isSafeInteger(team) && Number.isSafeInteger(modelTeam)) {
    const paired = c.teams.providerOf(modelTeam as number);
    if (paired !== undefined) {
      if (team !== paired)
        found.push(
          divergence(
            'PROVIDER_TEAM_ID_CHANGED',
            at('team_id'),
            `answered team_id ${team} for a group whose team_id is ${paired}`,
          ),
        );
    } else {
      const owner = c.teams.modelOf(team as number);
      const relation = owner === undefined ? undefined : c.teamHolder(owner);
      const reused = relation === undefined ? undefined : reuse(relation, 'team_id', at('team_id'));
      if (reused !== undefined) found.push(reused);
      else binds.push(() => c.teams.bind(modelTeam as number, team as number));
    }
  }
  return { divergences: found, binds, learn: false };
}

/** The divergence of a new value the provider already gave another group, or undefined when it may share it. */
export function reuse(relation: Relation, what: 'token' | 'team_id', path: string): Divergence | undefined {
  const code = what === 'token' ? 'PROVIDER_TOKEN_REUSED' : 'PROVIDER_TEAM_ID_REUSED';
  switch (relation.kind) {
    case 'ambiguous':
      relation.forget();
      return undefined;
    case 'retired':
      return divergence(code, path, `answered as a new ${what} one that a group held before`);
    case 'other':
      return divergence(
        'PROVIDER_ENVIRONMENT_CROSSED',
        path,
        `answered the ${what} of group "${relation.group.provided_id}" of the ${relation.group.environment} environment`,
      );
    case 'group':
      return divergence(
        code,
        path,
        `answered as a new ${what} the one of group "${relation.group.provided_id}"`,
      );
  }
}
