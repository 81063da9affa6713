import { type Environment, environments, type Group } from '../domain/model.js';
import type { MockContext } from '../runtime/mockContext.js';
import type { RetiredToken } from '../store/retiredTokens.js';

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

/**
 * Resolves a token the way an embedded dashboard does: the group holding it now, within the dashboard's tenant and
 * environment. A token that is not live is looked up among the tokens rotations replaced (in the dashboard's tenant
 * first), and among the API keys, a credential often pasted in its place (a key made through another replica is read
 * from the store). Each question asks the store only what the answers before it left open. Rejects with
 * `StoreUnavailableError` when the store is out of reach.
 */
export async function resolveEmbed(context: MockContext, request: EmbedRequest): Promise<EmbedOutcome> {
  const { store } = context;
  const { token, tenant, environment } = request;
  if (!environments.includes(environment as Environment)) return { kind: 'bad-environment', environment };
  if (!(await store.tenantExists(tenant))) return { kind: 'unknown-tenant', tenant };
  if (token === undefined || token === '') return { kind: 'missing-token' };
  const live = await store.groupByToken(token);
  if (live !== undefined) {
    if (live.tenant !== tenant) return { kind: 'other-tenant', tenant: live.tenant };
    if (live.group.environment !== environment)
      return { kind: 'other-environment', environment: live.group.environment };
    return { kind: 'viewing', group: live.group };
  }
  const scopes = [tenant, ...[...context.tenants.keys()].filter((id) => id !== tenant)];
  for (const id of scopes) {
    const retired = context.tenants.get(id)?.retired.find(token);
    if (retired === undefined) continue;
    const group = await store.group(id, retired.environment, retired.provided_id);
    return { kind: 'rotated', retired, tenant: id, groupExists: group !== undefined };
  }
  if (context.keys.owner(token) === undefined) {
    const owner = await store.lookUpKey(token);
    if (owner !== undefined && owner !== 'group-token') context.keys.learn(token, owner);
  }
  const key = context.keys.owner(token);
  return key === undefined ? { kind: 'unknown' } : { kind: 'api-key', environment: key.environment };
}
