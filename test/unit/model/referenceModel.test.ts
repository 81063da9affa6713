import { describe, expect, it } from 'vitest';
import { ReferenceModel } from '../../../src/model/referenceModel.js';
import type { OperationId } from '../../../src/spec/operations.js';

const token = (n: number): string => n.toString(16).padStart(64, '0');
const group = (id: string, n: number, extra: Record<string, unknown> = {}) => ({
  team_id: n,
  token: token(n),
  name: id,
  provided_id: id,
  properties: null,
  ...extra,
});
const created = (id: string, n: number) => ({ success: 1, new_user_group: true, user_group: group(id, n) });
const codes = (
  model: ReferenceModel,
  op: OperationId,
  request: unknown,
  status: number,
  answer: unknown,
  scope = 'key',
) => model.judge(op, request, status, answer, scope).map((d) => d.code);

describe('the reference model, knowing every call (conform)', () => {
  const complete = () =>
    new ReferenceModel({ knowledge: 'complete', environments: new Map([['key', 'Customer']]) });

  it('takes fresh random tokens and team ids, and flags a token or team_id another group holds', () => {
    const model = complete();
    expect(
      codes(model, 'getOrCreateUserGroup', { user_group_id: 'a', name: 'a' }, 200, created('a', 1)),
    ).toEqual([]);
    expect(
      codes(model, 'getOrCreateUserGroup', { user_group_id: 'b', name: 'b' }, 200, created('b', 1)),
    ).toEqual(['PROVIDER_TOKEN_REUSED', 'PROVIDER_TEAM_ID_REUSED']);
  });

  it('flags properties merged where an update replaces them, naming the rule', () => {
    const model = complete();
    const get = { user_group_id: 'a', name: 'a', properties: { plan: 'pro', seats: 5 } };
    model.judge(
      'getOrCreateUserGroup',
      get,
      200,
      { ...created('a', 1), user_group: group('a', 1, { properties: get.properties }) },
      'key',
    );
    const merged = { plan: 'basic', seats: 5 };
    const [divergence] = model.judge(
      'updateUserGroup',
      { user_group_id: 'a', properties: { plan: 'basic' } },
      200,
      { success: 1, user_group: group('a', 1, { properties: merged, api_environment_tag: 'Customer' }) },
      'key',
    );
    expect(divergence).toEqual({
      code: 'PROVIDER_PROPERTIES_MERGED',
      path: '/body/user_group/properties',
      message:
        'answered properties {"plan":"basic","seats":5} where the service must answer {"plan":"basic"}: the earlier properties merged with the new ones; the rule: update: properties (and mapping) are replaced whole, never merged',
    });
  });

  it('flags a success where the service refuses: an unknown id updated, a rotated token accepted', () => {
    const model = complete();
    expect(
      codes(model, 'updateUserGroup', { user_group_id: 'x', name: 'x' }, 200, {
        success: 1,
        user_group: group('x', 9, { api_environment_tag: 'Customer' }),
      }),
    ).toEqual(['PROVIDER_UNKNOWN_GROUP_UPDATED']);
    model.judge('getOrCreateUserGroup', { user_group_id: 'a', name: 'a' }, 200, created('a', 1), 'key');
    const rotated = {
      success: 1,
      user_group: {
        ...group('a', 1, { token: token(2), api_environment_tag: 'Customer' }),
        properties: undefined,
      },
    };
    expect(codes(model, 'rotateUserGroupToken', { current_token: token(1) }, 200, rotated)).toEqual([]);
    expect(codes(model, 'rotateUserGroupToken', { current_token: token(1) }, 404, { success: 0 })).toEqual(
      [],
    );
    expect(codes(model, 'rotateUserGroupToken', { current_token: token(1) }, 200, rotated)).toEqual([
      'PROVIDER_ROTATED_TOKEN_ACCEPTED',
    ]);
  });
});

describe('the reference model, learning (the proxy)', () => {
  it('learns a group first seen, then judges it', () => {
    const model = new ReferenceModel({ knowledge: 'learning' });
    const known = { success: 1, new_user_group: false, user_group: group('a', 1) };
    expect(codes(model, 'getOrCreateUserGroup', { user_group_id: 'a', name: 'a' }, 200, known)).toEqual([]);
    expect(
      codes(model, 'getOrCreateUserGroup', { user_group_id: 'a', name: 'a' }, 200, {
        ...known,
        user_group: group('a', 1, { token: token(2) }),
      }),
    ).toEqual(['PROVIDER_TOKEN_CHANGED']);
    // Judged once: the model now follows what the service holds.
    expect(
      codes(model, 'getOrCreateUserGroup', { user_group_id: 'a', name: 'a' }, 200, {
        ...known,
        user_group: group('a', 1, { token: token(2) }),
      }),
    ).toEqual([]);
  });

  it('calls an update not kept by its name when the read after it sends the original name again', () => {
    const model = new ReferenceModel({ knowledge: 'learning' });
    const read = { user_group_id: 'a', name: 'A', properties: null };
    const answer = { success: 1, new_user_group: false, user_group: group('a', 1, { name: 'A' }) };
    expect(codes(model, 'getOrCreateUserGroup', read, 200, answer)).toEqual([]);
    const renamed = { success: 1, user_group: group('a', 1, { name: 'Renamed' }) };
    expect(codes(model, 'updateUserGroup', { user_group_id: 'a', name: 'Renamed' }, 200, renamed)).toEqual(
      [],
    );
    // The service kept nothing: the read's answer is byte for byte the one before the update.
    expect(model.judge('getOrCreateUserGroup', read, 200, answer, 'key')).toEqual([
      {
        code: 'PROVIDER_UPDATE_NOT_KEPT',
        path: '/body/user_group/name',
        message:
          'answered name "A", the name before the last update, where the service must answer "Renamed", the name the last update set; the rule: update: fields present replace the stored ones, absent fields stay, and what an update stored is what later answers show',
      },
    ]);
  });

  it('says a read showing the token a rotation replaced is that rotation not kept', () => {
    const model = new ReferenceModel({ knowledge: 'learning' });
    const read = { user_group_id: 'a', name: 'a' };
    const answer = { success: 1, new_user_group: false, user_group: group('a', 1) };
    model.judge('getOrCreateUserGroup', read, 200, answer, 'key');
    const rotated = {
      success: 1,
      user_group: { ...group('a', 1, { token: token(2) }), properties: undefined },
    };
    expect(codes(model, 'rotateUserGroupToken', { current_token: token(1) }, 200, rotated)).toEqual([]);
    const [divergence] = model.judge('getOrCreateUserGroup', read, 200, answer, 'key');
    expect(divergence?.code).toBe('PROVIDER_TOKEN_CHANGED');
    expect(divergence?.message).toContain(
      'answered a token a rotation answered 200 replaced, where the group holds the token that rotation answered: the rotation was not kept',
    );
  });

  it('flags a rotation that answers the current token, and not one that answers a new token', () => {
    const model = new ReferenceModel({ knowledge: 'learning' });
    const rotation = (answered: string) => ({
      success: 1,
      user_group: {
        provided_id: 'a',
        name: 'a',
        team_id: 1,
        token: answered,
        api_environment_tag: 'Customer',
      },
    });
    expect(
      codes(model, 'rotateUserGroupToken', { current_token: token(1) }, 200, rotation(token(1))),
    ).toEqual(['PROVIDER_TOKEN_NOT_ROTATED']);
    const fresh = new ReferenceModel({ knowledge: 'learning' });
    expect(
      codes(fresh, 'rotateUserGroupToken', { current_token: token(1) }, 200, rotation(token(2))),
    ).toEqual([]);
  });

  it('judges a key reaching the other environment only when the environments are declared', () => {
    const answer = { success: 1, new_user_group: false, user_group: group('a', 1) };
    const steps = (model: ReferenceModel) => {
      model.judge(
        'getOrCreateUserGroup',
        { user_group_id: 'a', name: 'a' },
        200,
        created('a', 1),
        'customer',
      );
      return codes(model, 'getOrCreateUserGroup', { user_group_id: 'a', name: 'a' }, 200, answer, 'testing');
    };
    expect(steps(new ReferenceModel({ knowledge: 'learning' }))).toEqual([]);
    const declared = new Map([
      ['customer', 'Customer'],
      ['testing', 'Testing'],
    ] as const);
    expect(steps(new ReferenceModel({ knowledge: 'learning', environments: declared }))).toEqual([
      'PROVIDER_ENVIRONMENT_CROSSED',
    ]);
  });

  it('forgets the least recently used groups past its capacity, and then checks less, never wrongly', () => {
    const model = new ReferenceModel({ knowledge: 'learning', capacity: 100 });
    const get = (id: string) => ({ user_group_id: id, name: id });
    model.judge('getOrCreateUserGroup', get('busy'), 200, created('busy', 1), 'key');
    for (let n = 2; n < 200; n++) {
      model.judge('getOrCreateUserGroup', get(`g${n}`), 200, created(`g${n}`, n), 'key');
      if (n % 50 === 0)
        model.judge(
          'getOrCreateUserGroup',
          get('busy'),
          200,
          { ...created('busy', 1), new_user_group: false },
          'key',
        );
    }
    // The busy group is remembered; g2 was forgotten, so its new token is learnt, not flagged.
    expect(
      codes(model, 'getOrCreateUserGroup', get('busy'), 200, { ...created('busy', 1), new_user_group: true }),
    ).toEqual(['PROVIDER_GROUP_CREATED_AGAIN']);
    expect(
      codes(model, 'getOrCreateUserGroup', get('g2'), 200, {
        success: 1,
        new_user_group: false,
        user_group: group('g2', 500),
      }),
    ).toEqual([]);
  });
});
