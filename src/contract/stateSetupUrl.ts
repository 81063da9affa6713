import { product } from '../errors.js';
import { type AdminAnswer, adminRequest, reasonOf } from './adminRequest.js';
import { contractStates } from './publishedContract.js';
import type { StateHandler } from './stateFailure.js';
import { StateSetupError } from './stateFailure.js';

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
  for (const state of contractStates(contracts).keys()) {
    const fail = (status: number | undefined, detail: string, said: string): StateSetupError =>
      new StateSetupError(
        `${product}: ${stateSetupUrl} ${said} to state "${state}": ${detail}`,
        state,
        stateSetupUrl,
        status,
        detail,
      );
    handlers[state] = async (params) => {
      let answer: AdminAnswer;
      try {
        answer = await adminRequest(
          'POST',
          stateSetupUrl,
          {},
          { state, params: params ?? {}, action: 'setup' },
        );
      } catch (error) {
        throw fail(undefined, (error as Error).message, 'gave no answer');
      }
      const { status, body } = answer;
      if (status < 200 || status >= 300) throw fail(status, reasonOf(answer), `answered ${status}`);
      return body !== null && typeof body === 'object' ? (body as Record<string, string | number>) : {};
    };
  }
  return handlers;
}
