import type { Environment } from '../domain/model.js';
import { product } from '../errors.js';
import { type AdminAnswer, adminRequest, reasonOf } from './adminRequest.js';
import { StateSetupError } from './stateFailure.js';

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
  const post = (state: string, path: string, body?: unknown) =>
    postJson(state, `${admin}${path}`, headers, body);
  return {
    [providerStates.noGroups]: async () => {
      await post(providerStates.noGroups, '/reset');
      return {};
    },
    [providerStates.groupExists]: async (params) => {
      const seed = params as GroupStateParams;
      await post(providerStates.groupExists, '/reset');
      const created = (await post(providerStates.groupExists, '/groups', seed)) as
        | { token?: unknown }
        | undefined;
      return { token: typeof created?.token === 'string' ? created.token : seed.token };
    },
  };
}

/** POSTs to the admin API; a `StateSetupError` when there is no answer or it is not a success. */
async function postJson(
  state: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<unknown> {
  let answer: AdminAnswer;
  try {
    answer = await adminRequest('POST', url, headers, body);
  } catch (error) {
    const { message } = error as Error;
    throw new StateSetupError(
      `${product}: POST ${url} failed to set state "${state}" up (${message}); is the provider running?`,
      state,
      url,
      undefined,
      message,
    );
  }
  if (answer.status < 200 || answer.status >= 300) {
    const reason = reasonOf(answer);
    throw new StateSetupError(
      `${product}: POST ${url} answered ${answer.status} (${reason}) to state "${state}"; provider states are set up through the /__admin API: check the API key and admin key, or give a state setup URL`,
      state,
      url,
      answer.status,
      reason,
    );
  }
  return answer.body;
}
