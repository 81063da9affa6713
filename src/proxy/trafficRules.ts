import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Diagnostic } from '../spec/types.js';

type Loose = Readonly<Record<string, unknown>>;

/** One answered exchange, as the rules see it: who asked (the `keyScope` of the API key), what, and what came back. */
export interface ObservedExchange {
  readonly scope: string;
  readonly operationId: string;
  readonly requestBody: unknown;
  readonly status: number;
  readonly responseBody: unknown;
}

/**
 * The codes of the traffic rules' diagnostics, all of them the provider's: the table of docs/proxy.md lists each
 * (test/unit/proxy/trafficRules.test.ts keeps the two in step).
 */
export const providerCodes = [
  'PROVIDER_GROUP_CREATED_AGAIN',
  'PROVIDER_TOKEN_CHANGED',
  'PROVIDER_TOKEN_NOT_ROTATED',
  'PROVIDER_ROTATED_TOKEN_ACCEPTED',
  'PROVIDER_ENVIRONMENT_CHANGED',
] as const;

export type ProviderCode = (typeof providerCodes)[number];

type ProviderDiagnostic = Diagnostic & { readonly code: ProviderCode };

const field = (value: unknown, name: string): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Loose)[name] : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The facts of each kind the rules keep: past it, the least recently used are forgotten. */
const capacity = 10_000;

/**
 * The service's rules a proxy can check from the traffic alone, over what it has seen through one API key: a
 * get-or-create of a known id returns the same token and `new_user_group: false` (an update keeps the token too);
 * a rotation answers a new token, and the rotated-away one stops working; the environment follows the key. Memory
 * is bounded by `capacity` (a rule then checks less, never wrongly). Keys are kept as digests only.
 */
export class TrafficRules {
  readonly #tokens = new LRUCache<string, string>({ max: capacity });
  readonly #retired = new LRUCache<string, true>({ max: capacity });
  readonly #environments = new LRUCache<string, string>({ max: capacity });

  /** The environment the answers to a key (its `keyScope`) have shown (`api_environment_tag`), if any yet. */
  environmentOf(scope: string): string | undefined {
    return this.#environments.get(scope);
  }

  /** The provider's breaches of the rules in this exchange (paths point into the answer), then remembers it. */
  check(exchange: ObservedExchange): ProviderDiagnostic[] {
    if (exchange.status !== 200 || field(exchange.responseBody, 'success') !== 1) return [];
    const scope = exchange.scope;
    const group = field(exchange.responseBody, 'user_group');
    const token = text(field(group, 'token'));
    const id = text(field(group, 'provided_id')) ?? text(field(exchange.requestBody, 'user_group_id'));
    const found: ProviderDiagnostic[] = [];
    const known = id === undefined ? undefined : this.#tokens.get(`${scope}\0${id}`);
    const op = exchange.operationId;
    if (op === 'getOrCreateUserGroup' && known !== undefined) {
      if (field(exchange.responseBody, 'new_user_group') !== false)
        found.push({
          code: 'PROVIDER_GROUP_CREATED_AGAIN',
          path: '/body/new_user_group',
          message: `get-or-create of "${id}", a group this API key already got, answered new_user_group ${JSON.stringify(field(exchange.responseBody, 'new_user_group'))}; a known id must answer false`,
        });
    }
    if ((op === 'getOrCreateUserGroup' || op === 'updateUserGroup') && known !== undefined && token !== known)
      found.push({
        code: 'PROVIDER_TOKEN_CHANGED',
        path: '/body/user_group/token',
        message: `${op} of "${id}" answered another token than the one this group was given before; only a rotation (POST /api/user) may change it`,
      });
    if (op === 'rotateUserGroupToken') {
      const current = text(field(exchange.requestBody, 'current_token'));
      if (current !== undefined && token === current)
        found.push({
          code: 'PROVIDER_TOKEN_NOT_ROTATED',
          path: '/body/user_group/token',
          message:
            'a rotation must answer a new token; the service answered the current one unchanged (user_group.token is the current_token sent), so the token the client means to retire keeps working',
        });
      if (current !== undefined && this.#retired.has(`${scope}\0${current}`))
        found.push({
          code: 'PROVIDER_ROTATED_TOKEN_ACCEPTED',
          path: '/status',
          message:
            'a rotation with a current_token that an earlier rotation replaced answered 200; a rotated-away token must stop working (the mock answers 404 TOKEN_NOT_FOUND)',
        });
      if (current !== undefined && current !== token) this.#retired.set(`${scope}\0${current}`, true);
    }
    const environment = text(field(group, 'api_environment_tag'));
    const seen = this.#environments.get(scope);
    if (environment !== undefined && seen !== undefined && environment !== seen)
      found.push({
        code: 'PROVIDER_ENVIRONMENT_CHANGED',
        path: '/body/user_group/api_environment_tag',
        message: `this API key's earlier answers were in ${seen}, this one is in ${environment}; the environment follows the key`,
      });
    if (environment !== undefined && seen === undefined) this.#environments.set(scope, environment);
    if (id !== undefined && token !== undefined) this.#tokens.set(`${scope}\0${id}`, token);
    return found;
  }

  clear(): void {
    this.#tokens.clear();
    this.#retired.clear();
    this.#environments.clear();
  }
}

/** How the rules name an API key: its SHA-256 digest (taken once per exchange; the key itself is not kept). */
export const keyScope = (apiKey: string): string => hash('sha256', apiKey, 'base64');
