import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { product } from '../errors.js';
import type { StateHandler } from './providerStates.js';

/**
 * State handlers that forward every provider state of the contracts to a Pact state-change URL, the way the
 * Pact Verifier itself would: `POST { state, params, action: "setup" }`; a JSON object answered is injected.
 */
export function forwardingStateHandlers(
  stateSetupUrl: string,
  contracts: readonly string[],
): Record<string, StateHandler> {
  const handlers: Record<string, StateHandler> = {};
  for (const state of statesOf(contracts)) {
    handlers[state] = async (params) => {
      const payload = JSON.stringify({ state, params: params ?? {}, action: 'setup' });
      const response = await request(stateSetupUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) },
        body: payload,
      });
      const text = await response.body.text();
      if (response.statusCode < 200 || response.statusCode >= 300)
        throw new Error(
          `${product}: ${stateSetupUrl} answered ${response.statusCode} to state "${state}": ${text.slice(0, 300)}`,
        );
      const answer: unknown = text.trim() === '' ? {} : JSON.parse(text);
      return answer !== null && typeof answer === 'object' ? (answer as Record<string, string | number>) : {};
    };
  }
  return handlers;
}

function statesOf(contracts: readonly string[]): Set<string> {
  const states = new Set<string>();
  for (const file of contracts) {
    const contract = JSON.parse(readFileSync(file, 'utf8')) as {
      interactions?: { providerStates?: { name?: string }[] }[];
    };
    for (const interaction of contract.interactions ?? [])
      for (const state of interaction.providerStates ?? []) if (state.name) states.add(state.name);
  }
  return states;
}
