import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Environment } from '../domain/model.js';
import { defaultApiKeys } from '../runtime/keyRing.js';

/** Where the published Pact contracts live: `contracts/` at the package root (shipped with the package). */
export const contractDirectory = new URL('../../contracts/', import.meta.url);

/** The Pact participants of the published contract. */
export const consumerName = 'user-group-client';
export const providerName = 'user-group-service';

/** The contract the reference client's consumer tests write (and that `user-group-mock verify` checks). */
export const contractFile = new URL(`${consumerName}-${providerName}.json`, contractDirectory);

/** Paths of every published contract file (`contracts/*.json`). */
export function publishedContracts(): string[] {
  const directory = fileURLToPath(contractDirectory);
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => `${directory}${name}`);
}

/**
 * The provider states the contracts use, in order of first use, each with the params of its first use (`{}` when
 * it has none): what a Pact Verifier asks a state handler to set up.
 */
export function contractStates(contracts: readonly string[]): Map<string, Record<string, unknown>> {
  const states = new Map<string, Record<string, unknown>>();
  for (const file of contracts) {
    const contract = JSON.parse(readFileSync(file, 'utf8')) as {
      interactions?: { providerStates?: { name?: string; params?: Record<string, unknown> }[] }[];
    };
    for (const interaction of contract.interactions ?? [])
      for (const state of interaction.providerStates ?? [])
        if (state.name && !states.has(state.name)) states.set(state.name, state.params ?? {});
  }
  return states;
}

/** The API keys the contract's requests carry, one per environment: the keys a default mock accepts. */
export const contractApiKeys = Object.fromEntries(
  defaultApiKeys.map(({ key, environment }) => [environment, key]),
) as Readonly<Record<Environment, string>>;
