import { isDeepStrictEqual } from 'node:util';
import { type ApiError, apiError, type ErrorCode } from '../errors.js';
import { failure, ok, type Result } from '../result.js';
import type { RequestBodies, SeedGroupRequest, SuccessBodies } from '../spec/types.js';
import type { Change } from './changes.js';
import type { IdSource } from './ids.js';
import { type Environment, findByToken, type Group, groupKey, type Tenant, type World } from './model.js';

/** Who is asking: the tenant and environment of the API key. */
export interface Caller {
  readonly tenant: Tenant;
  readonly environment: Environment;
}

/** What a rule decided: the answer's body, the changes to store, and a notice for the client. */
export interface Decision<B> {
  readonly body: B;
  readonly changes: readonly Change[];
  readonly notice?: string;
}

/** Get-or-create: an unknown id creates the group; a known id returns it unchanged. */
export function getOrCreate(
  world: World,
  caller: Caller,
  request: RequestBodies['getOrCreateUserGroup'],
  ids: IdSource,
): Result<Decision<SuccessBodies['getOrCreateUserGroup']>> {
  const existing = caller.tenant.groups.get(groupKey(caller.environment, request.user_group_id));
  if (existing !== undefined) {
    const differing = differingFields(request, existing);
    const notice =
      differing.length === 0
        ? undefined
        : `group "${existing.provided_id}" already exists and was returned unchanged; its ${fieldList(differing)} ${differing.length === 1 && differing[0] !== 'properties' ? 'differs' : 'differ'} from the request. Use PUT /api/user to update it.`;
    return ok({
      body: getOrCreateBody(existing, false),
      changes: [],
      ...(notice ? { notice } : {}),
    });
  }
  const group = newGroup(world, ids, caller.environment, request);
  return ok({
    body: getOrCreateBody(group, true),
    changes: [{ op: 'putGroup', tenant: caller.tenant.id, group }],
  });
}

/** A group made from a request's fields: the next team_id and a fresh token, unless given (a seed may give them). */
export const newGroup = (
  world: World,
  ids: IdSource,
  environment: Environment,
  fields: Omit<SeedGroupRequest, 'environment'>,
): Group => ({
  environment,
  team_id: fields.team_id ?? world.nextTeamId,
  token: fields.token ?? ids.token(),
  name: fields.name,
  provided_id: fields.user_group_id,
  mapping: fields.mapping ?? null,
  properties: fields.properties ?? null,
});

/**
 * Update: fields present replace the stored ones whole; absent fields stay. An unknown id is refused, naming the
 * other environment of the caller's tenant when the id is there (the key picks the environment).
 */
export function update(
  caller: Caller,
  request: RequestBodies['updateUserGroup'],
): Result<Decision<SuccessBodies['updateUserGroup']>> {
  const existing = caller.tenant.groups.get(groupKey(caller.environment, request.user_group_id));
  if (existing === undefined) {
    const id = JSON.stringify(request.user_group_id);
    const other = otherEnvironment(caller.environment);
    const elsewhere = caller.tenant.groups.has(groupKey(other, request.user_group_id));
    const message = elsewhere
      ? `no group with user_group_id ${id} in the ${caller.environment} environment of this API key, but the ${other} environment has one: the API key decides the environment, so update it with this tenant's ${other} key (a GET /api/user with this key would create a second group in ${caller.environment})`
      : `no group with user_group_id ${id} in the ${caller.environment} environment of this API key; create it first with GET /api/user`;
    const brief = `no group ${id} in ${caller.environment}${elsewhere ? `; it is in ${other}` : ''}`;
    return failure(refusal('GROUP_NOT_FOUND', message, '/body/user_group_id', brief));
  }
  const group: Group = {
    ...existing,
    name: request.name ?? existing.name,
    mapping: request.mapping ?? existing.mapping,
    properties: request.properties ?? existing.properties,
  };
  return ok({ body: updateBody(group), changes: [{ op: 'putGroup', tenant: caller.tenant.id, group }] });
}

/**
 * Rotate: the current token must belong to a group of the caller's environment; the old token dies at once. A
 * current token of the caller's other environment is refused as such (the key picks the environment).
 */
export function rotate(
  world: World,
  caller: Caller,
  request: RequestBodies['rotateUserGroupToken'],
  ids: IdSource,
): Result<Decision<SuccessBodies['rotateUserGroupToken']>> {
  const found = findByToken(world, request.current_token);
  if (
    found === undefined ||
    found.tenant !== caller.tenant ||
    found.group.environment !== caller.environment
  ) {
    const other = found?.tenant === caller.tenant ? found.group : undefined;
    const message =
      other !== undefined
        ? `current_token is the token of group ${JSON.stringify(other.provided_id)} in the ${other.environment} environment, not in the ${caller.environment} environment of this API key: the API key decides the environment, so rotate it with this tenant's ${other.environment} key`
        : `no group in the ${caller.environment} environment of this API key holds current_token; it may have been rotated already: use the token from the latest response`;
    const brief =
      other !== undefined
        ? `the token of a group in ${other.environment}, not in ${caller.environment}`
        : 'no group holds this token now';
    return failure(refusal('TOKEN_NOT_FOUND', message, '/body/current_token', brief));
  }
  const group: Group = { ...found.group, token: ids.token() };
  return ok({ body: rotateBody(group), changes: [{ op: 'putGroup', tenant: caller.tenant.id, group }] });
}

/** A token a rotation replaced: the group that held it, and when (milliseconds since the epoch). */
export interface RotatedAway {
  readonly environment: Environment;
  readonly provided_id: string;
  readonly rotatedAt: number;
}

/** A moment as `2026-11-25 21:21:13`, in UTC to the second, the way messages and pages show it. */
export const utcSecond = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/**
 * The rotation's TOKEN_NOT_FOUND when the mock knows the token was rotated away: whose it was, until when, and where
 * the group's current token is (`groupExists` false: the group was removed since, by a reset).
 */
export function rotatedTokenNotFound(retired: RotatedAway, groupExists: boolean): ApiError {
  const id = JSON.stringify(retired.provided_id);
  const next = groupExists
    ? `use the group's current token: GET /api/user with {"user_group_id": ${id}, "name": …} answers it (${retired.environment} key)`
    : 'its group has since been removed: create it again with GET /api/user';
  const until = `${utcSecond(retired.rotatedAt)} UTC`;
  return refusal(
    'TOKEN_NOT_FOUND',
    `current_token was the token of group ${id} (${retired.environment}) until ${until}, when a rotation replaced it; ${next}`,
    '/body/current_token',
    `rotated away at ${until}`,
  );
}

/** A rule's refusal: `message` says it all, its one diagnostic at `path` says it in brief. */
const refusal = (code: ErrorCode, message: string, path: string, brief: string): ApiError =>
  apiError(code, message, [{ code, path, message: brief }]);

/** `name`, `name and properties`, `name, mapping and properties`. */
const fieldList = (fields: readonly string[]): string =>
  fields.length < 2 ? fields.join('') : `${fields.slice(0, -1).join(', ')} and ${fields.at(-1)}`;

/** The fields a get-or-create sends that differ from the stored group (none, almost always: checked first). */
function differingFields(request: RequestBodies['getOrCreateUserGroup'], existing: Group): string[] {
  if (request.name === existing.name && request.mapping === undefined && request.properties === undefined)
    return [];
  return (['name', 'mapping', 'properties'] as const).filter(
    (field) => request[field] !== undefined && !isDeepStrictEqual(request[field], existing[field]),
  );
}

const otherEnvironment = (environment: Environment): Environment =>
  environment === 'Customer' ? 'Testing' : 'Customer';

// Each answer's fields written out: spreading shared ones into it made every get-or-create about 4 µs slower.
const getOrCreateBody = (group: Group, isNew: boolean): SuccessBodies['getOrCreateUserGroup'] => ({
  success: 1,
  new_user_group: isNew,
  user_group: {
    team_id: group.team_id,
    token: group.token,
    name: group.name,
    provided_id: group.provided_id,
    properties: group.properties,
  },
});

const updateBody = (group: Group): SuccessBodies['updateUserGroup'] => ({
  success: 1,
  user_group: {
    team_id: group.team_id,
    token: group.token,
    name: group.name,
    provided_id: group.provided_id,
    properties: group.properties,
    api_environment_tag: group.environment,
  },
});

const rotateBody = (group: Group): SuccessBodies['rotateUserGroupToken'] => ({
  success: 1,
  user_group: {
    team_id: group.team_id,
    token: group.token,
    name: group.name,
    provided_id: group.provided_id,
    api_environment_tag: group.environment,
  },
});
