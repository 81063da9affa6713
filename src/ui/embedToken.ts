import {
  defaultTenantId,
  type Environment,
  emptyWorld,
  environments,
  findByToken,
  type Group,
  groupKey,
  type World,
} from '../domain/model.js';
import type { MockContext } from '../runtime/mockContext.js';
import type { RetiredToken } from '../runtime/retiredTokens.js';

/** Which dashboard is embedded where: the scope a real embed would resolve its token in. */
export interface EmbedRequest {
  readonly token: string | undefined;
  /** The tenant the dashboard belongs to (`default` unless given). */
  readonly tenant: string;
  /** The environment the dashboard is embedded for (`Customer` unless given). */
  readonly environment: string;
}

/** What an embedded dashboard would make of a token. */
export type EmbedOutcome =
  | { readonly kind: 'viewing'; readonly group: Group }
  | { readonly kind: 'missing-token' }
  | { readonly kind: 'bad-environment'; readonly environment: string }
  | { readonly kind: 'unknown-tenant'; readonly tenant: string }
  | { readonly kind: 'api-key'; readonly environment: Environment }
  | { readonly kind: 'unknown' }
  | {
      readonly kind: 'rotated';
      readonly retired: RetiredToken;
      /** The tenant whose group held it. */
      readonly tenant: string;
      /** Whether that group still exists (a reset removes it). */
      readonly groupExists: boolean;
    }
  | { readonly kind: 'other-tenant'; readonly tenant: string }
  | { readonly kind: 'other-environment'; readonly environment: Environment };

/** `resolveEmbed` over the world of the rows it read. */
function resolveOver(context: MockContext, request: EmbedRequest, world: World): EmbedOutcome {
  const { token, tenant } = request;
  if (!environments.includes(request.environment as Environment))
    return { kind: 'bad-environment', environment: request.environment };
  const environment = request.environment as Environment;
  if (!world.tenants.has(tenant)) return { kind: 'unknown-tenant', tenant };
  if (token === undefined || token === '') return { kind: 'missing-token' };
  const live = findByToken(world, token);
  if (live !== undefined) {
    if (live.tenant.id !== tenant) return { kind: 'other-tenant', tenant: live.tenant.id };
    if (live.group.environment !== environment)
      return { kind: 'other-environment', environment: live.group.environment };
    return { kind: 'viewing', group: live.group };
  }
  const scopes = [tenant, ...[...context.runtimes.keys()].filter((id) => id !== tenant)];
  for (const id of scopes) {
    const retired = context.runtimes.get(id)?.retired.find(token);
    if (retired === undefined) continue;
    const key = groupKey(retired.environment, retired.provided_id);
    const groupExists = world.tenants.get(id)?.groups.has(key) === true;
    return { kind: 'rotated', retired, tenant: id, groupExists };
  }
  const key = context.keys.owner(token);
  if (key !== undefined) return { kind: 'api-key', environment: key.environment };
  return { kind: 'unknown' };
}

/**
 * Resolves a token the way an embedded dashboard does: the group holding it now, within the dashboard's tenant and
 * environment. A token that is not live is looked up among the tokens rotations replaced (in the dashboard's tenant
 * first), and among the API keys, a credential often pasted in its place. The rows it needs are read from the store
 * first (the dashboard's tenant, the group holding the token, the group a rotated token belonged to, a key made
 * through another replica), into a world of just those. Rejects with `StoreUnavailableError` when the store is out
 * of reach.
 */
export async function resolveEmbed(context: MockContext, request: EmbedRequest): Promise<EmbedOutcome> {
  const { store } = context;
  const { token, tenant } = request;
  const world = emptyWorld();
  const add = (id: string, group?: Group): void => {
    let scope = world.tenants.get(id);
    if (scope === undefined) {
      scope = { id, keys: null, groups: new Map() };
      world.tenants.set(id, scope);
    }
    if (group === undefined) return;
    const key = groupKey(group.environment, group.provided_id);
    scope.groups.set(key, group);
    world.tokens.set(group.token, { tenant: id, key });
  };
  // What the request alone settles (no environment of that name, no token) or the tenant's absence settles needs
  // no further query: resolveEmbed answers it over the world as it stands.
  const settled = () => resolveOver(context, request, world);
  if (!environments.includes(request.environment as Environment)) return settled();
  if (!(await store.tenantExists(tenant))) return settled();
  add(tenant);
  if (token === undefined || token === '') return settled();
  const live = await store.groupByToken(token);
  if (live !== undefined) add(live.tenant, live.group);
  else {
    for (const [id, runtime] of context.runtimes) {
      const retired = runtime.retired.find(token);
      if (retired === undefined) continue;
      const group = await store.group(id, retired.environment, retired.provided_id);
      if (group !== undefined) add(id, group);
    }
    if (context.keys.owner(token) === undefined) {
      const owner = await store.lookUpKey(token);
      if (owner !== undefined && owner !== 'group-token') context.keys.learn(token, owner);
    }
  }
  return settled();
}

export const defaultEmbedScope = { tenant: defaultTenantId, environment: 'Customer' } as const;
