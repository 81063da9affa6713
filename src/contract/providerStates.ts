import type { Environment } from '../domain/model.js';
import { product } from '../errors.js';
import { adminHeaders, adminUrlOf, routeMissing } from './adminRequest.js';
import { contractStates } from './publishedContract.js';
import { type StateHandler, stateSetupCall } from './stateFailure.js';

/** The provider states the published contract uses; a provider with the `/__admin` API can set each up. */
export const providerStates = {
  /** Nothing is stored: `DELETE /__admin/groups` (`POST /__admin/reset` where that route is missing). */
  noGroups: 'no user groups exist',
  /** Exactly one group, with these params: the groups removed as above, then `POST /__admin/groups`. */
  groupExists: 'a user group exists',
} as const;

/** The params of `a user group exists`. */
export interface GroupStateParams {
  readonly environment: Environment;
  readonly user_group_id: string;
  readonly name: string;
  readonly token: string;
}

export interface AdminAccess {
  /** Sent as `Authorization: Token <apiKey>`, so the admin calls act on that key's tenant (the default tenant for
   * the keys given on the command line). */
  readonly apiKey?: string;
  /** Sent as `X-Admin-Key` when the provider was started with `--admin-key`. */
  readonly adminKey?: string;
}

/**
 * State handlers that set each provider state up through the HTTP admin API of the provider at `baseUrl`
 * (the mock, or any implementation with `DELETE /__admin/groups` or `POST /__admin/reset`, and `POST /__admin/groups`).
 * Pass them to the Pact Verifier's `stateHandlers`. `a user group exists` resolves with the seeded group's `token`,
 * so a provider that assigns its own tokens still receives the right `current_token`. Every state removes the
 * scope's groups first (`DELETE /__admin/groups`), keeping its journal, so that what the mock said about an earlier
 * interaction's request (e.g. `AUTH_MISSING`) can still be read once the run ends; a provider that answers 404 or
 * 405 (or 501) there is reset instead (`POST /__admin/reset`, which empties its journal too). Give `apiKey` a key of a tenant
 * made for the purpose (`POST /__admin/tenants`) unless that scope's groups may go.
 */
export function contractStateHandlers(
  baseUrl: string,
  access: AdminAccess = {},
): Record<string, StateHandler> {
  const admin = adminUrlOf(baseUrl);
  const headers = adminHeaders(access.apiKey, access.adminKey);
  /** One admin call that sets `state` up, and its answer (a missing route too when `orMissing`). */
  const call = (
    state: string,
    method: 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    orMissing = false,
  ) => {
    const url = `${admin}${path}`;
    return stateSetupCall(
      { state, method, url },
      headers,
      body,
      (status, detail) =>
        status === undefined
          ? `${product}: ${method} ${url} failed to set state "${state}" up (${detail}); is the provider running?`
          : `${product}: ${method} ${url} answered ${status} (${detail}) to state "${state}"; provider states are set up through the /__admin API: check the API key and admin key, or give a state setup URL`,
      orMissing ? (status) => routeMissing.has(status) : undefined,
    );
  };
  /** Whether the provider has `DELETE /__admin/groups`; unknown until it is first asked. */
  let removes = true;
  const removeGroups = async (state: string): Promise<void> => {
    if (removes && !routeMissing.has((await call(state, 'DELETE', '/groups', undefined, true)).status))
      return;
    removes = false;
    await call(state, 'POST', '/reset');
  };
  return {
    [providerStates.noGroups]: async () => {
      await removeGroups(providerStates.noGroups);
      return {};
    },
    [providerStates.groupExists]: async (params) => {
      const seed = params as GroupStateParams;
      await removeGroups(providerStates.groupExists);
      const created = (await call(providerStates.groupExists, 'POST', '/groups', seed)).body as
        | { token?: unknown }
        | undefined;
      return { token: typeof created?.token === 'string' ? created.token : seed.token };
    },
  };
}

/**
 * State handlers that forward every provider state of the contracts to a Pact state-change URL, the way the
 * Pact Verifier itself would: `POST { state, params, action: "setup" }`. A 2xx answer sets the state up; a JSON
 * object in it is injected (any other body is ignored). Any other answer, or none, throws a `StateSetupError`.
 */
export function forwardingStateHandlers(
  stateSetupUrl: string,
  contracts: readonly string[],
): Record<string, StateHandler> {
  const handlers: Record<string, StateHandler> = {};
  for (const state of contractStates(contracts).keys())
    handlers[state] = async (params) => {
      const { body } = await stateSetupCall(
        { state, method: 'POST', url: stateSetupUrl },
        {},
        { state, params: params ?? {}, action: 'setup' },
        (status, detail) =>
          `${product}: ${stateSetupUrl} ${status === undefined ? 'gave no answer' : `answered ${status}`} to state "${state}": ${detail}`,
      );
      return body !== null && typeof body === 'object' ? (body as Record<string, string | number>) : {};
    };
  return handlers;
}
