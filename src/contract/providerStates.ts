import type { Environment } from '../domain/model.js';
import { product } from '../errors.js';
import { adminRequest, reasonOf } from './adminRequest.js';

/** The provider states the published contract uses; a provider with the `/__admin` API can set each up. */
export const providerStates = {
  /** Nothing is stored: `POST /__admin/reset`. */
  noGroups: 'no user groups exist',
  /** Exactly one group, with these params: `POST /__admin/reset`, then `POST /__admin/groups`. */
  groupExists: 'a user group exists',
} as const;

/** The params of `a user group exists`. */
export interface GroupStateParams {
  readonly environment: Environment;
  readonly user_group_id: string;
  readonly name: string;
  readonly token: string;
}

/** A state handler as the Pact Verifier calls it; what it resolves with is injected into the request. */
export type StateHandler = (params?: unknown) => Promise<Record<string, string | number>>;

export interface AdminAccess {
  /** Sent as `Authorization: Token <apiKey>`, so the admin calls act on that key's tenant (the default tenant for
   * the keys given on the command line). */
  readonly apiKey?: string;
  /** Sent as `X-Admin-Key` when the provider was started with `--admin-key`. */
  readonly adminKey?: string;
}

/**
 * State handlers that set each provider state up through the HTTP admin API of the provider at `baseUrl`
 * (the mock, or any implementation with `POST /__admin/reset` and `POST /__admin/groups`). Pass them to the
 * Pact Verifier's `stateHandlers`. `a user group exists` resolves with the seeded group's `token`, so a
 * provider that assigns its own tokens still receives the right `current_token`. Every state empties the scope
 * first: give `apiKey` a key of a tenant made for the purpose (`POST /__admin/tenants`) unless that scope's groups
 * may go.
 */
export function contractStateHandlers(
  baseUrl: string,
  access: AdminAccess = {},
): Record<string, StateHandler> {
  const admin = `${baseUrl.replace(/\/+$/, '')}/__admin`;
  const headers: Record<string, string> = {
    ...(access.apiKey === undefined ? {} : { authorization: `Token ${access.apiKey}` }),
    ...(access.adminKey === undefined ? {} : { 'x-admin-key': access.adminKey }),
  };
  const post = (path: string, body?: unknown) => postJson(`${admin}${path}`, headers, body);
  const reset = async (): Promise<void> => {
    await post('/reset');
  };
  return {
    [providerStates.noGroups]: async () => {
      await reset();
      return {};
    },
    [providerStates.groupExists]: async (params) => {
      const seed = params as GroupStateParams;
      await reset();
      const created = (await post('/groups', seed)) as { token?: unknown } | undefined;
      return { token: typeof created?.token === 'string' ? created.token : seed.token };
    },
  };
}

async function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<unknown> {
  const answer = await adminRequest('POST', url, headers, body);
  if (answer.status < 200 || answer.status >= 300) {
    throw new Error(
      `${product}: POST ${url} answered ${answer.status} (${reasonOf(answer)}); provider states are set up through the /__admin API: check the API key and admin key, or give a state setup URL`,
    );
  }
  return answer.body;
}
