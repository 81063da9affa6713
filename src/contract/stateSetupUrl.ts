import { request } from 'undici';
import { product } from '../errors.js';
import { adminTimeoutMs, reasonOf } from './adminRequest.js';
import type { StateHandler } from './providerStates.js';
import { contractStates } from './publishedContract.js';
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
      const payload = JSON.stringify({ state, params: params ?? {}, action: 'setup' });
      let statusCode: number;
      let text: string;
      try {
        const response = await request(stateSetupUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(payload)),
          },
          body: payload,
          signal: AbortSignal.timeout(adminTimeoutMs),
        });
        statusCode = response.statusCode;
        text = await response.body.text();
      } catch (error) {
        throw fail(undefined, (error as Error).message, 'gave no answer');
      }
      const answer: unknown = parsed(text);
      if (statusCode < 200 || statusCode >= 300)
        throw fail(
          statusCode,
          reasonOf({ status: statusCode, text, body: answer }),
          `answered ${statusCode}`,
        );
      return answer !== null && typeof answer === 'object' ? (answer as Record<string, string | number>) : {};
    };
  }
  return handlers;
}

/** The JSON text parsed; undefined when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
