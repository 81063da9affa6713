import type { Environment, StoredGroup } from '../spec/types.js';

export type { Environment };
export const environments: readonly Environment[] = ['Customer', 'Testing'];

/** A stored user group. `provided_id` is unique within (tenant, environment); `token` is unique everywhere. */
export type Group = Readonly<StoredGroup>;

/** API keys of a tenant made through the admin API. The default tenant's keys come from the command line. */
export type TenantKeys = Readonly<Record<Environment, string>>;

/** An API key and the environment whose groups it reaches (`Authorization: Token <key>`). */
export interface ApiKey {
  readonly key: string;
  readonly environment: Environment;
}

/** Who asks: the tenant and environment of an API key. */
export interface KeyOwner {
  readonly tenant: string;
  readonly environment: Environment;
}

export interface Tenant {
  readonly id: string;
  readonly keys: TenantKeys | null;
  /** By `groupKey(environment, provided_id)`. */
  readonly groups: Map<string, Group>;
}

/** All state the service keeps: tenants, their groups, and the token index over them. */
export interface World {
  readonly tenants: Map<string, Tenant>;
  readonly tokens: Map<string, TokenHolder>;
  nextTeamId: number;
}

export interface TokenHolder {
  readonly tenant: string;
  readonly key: string;
}

export const defaultTenantId = 'default';

export const groupKey = (environment: Environment, providedId: string): string =>
  `${environment}\u0000${providedId}`;

export function emptyWorld(): World {
  const world: World = { tenants: new Map(), tokens: new Map(), nextTeamId: 1 };
  world.tenants.set(defaultTenantId, { id: defaultTenantId, keys: null, groups: new Map() });
  return world;
}

export function findByToken(world: World, token: string): { tenant: Tenant; group: Group } | undefined {
  const holder = world.tokens.get(token);
  const tenant = holder === undefined ? undefined : world.tenants.get(holder.tenant);
  const group = holder === undefined ? undefined : tenant?.groups.get(holder.key);
  return tenant === undefined || group === undefined ? undefined : { tenant, group };
}
