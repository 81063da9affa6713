import { product } from '../errors.js';
import { contractStates } from './publishedContract.js';
import { type StateHandler, stateSetupCall } from './stateFailure.js';

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
