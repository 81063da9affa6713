import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { retryLaterStatuses } from '../errors.js';
import { guardProxy } from './proxyGuard.js';
import { contractApiKeys } from './publishedContract.js';
import type { StateHandler } from './stateFailure.js';
import type { ProviderVerification } from './verification.js';

/** The part of `@pact-foundation/pact` verify uses (loaded on demand: it is an optional dependency). */
export type PactModule = Pick<typeof import('@pact-foundation/pact'), 'Verifier'>;

/** The keys that replace the contract's keys in the requests that carry them. */
export interface ProviderKeys {
  readonly Customer: string;
  /** Without it, the interactions that send the contract's Testing key are skipped. */
  readonly Testing?: string;
}

export interface PactRunOptions {
  readonly providerBaseUrl: string;
  readonly pactUrls: readonly string[];
  readonly stateHandlers: Record<string, StateHandler>;
  readonly keys: ProviderKeys;
}

/** What the Pact Verifier found: each replayed interaction passed or failed, or why there is no verdict. */
export type PactRun = Pick<ProviderVerification, 'outcome' | 'interactions' | 'reason'>;

/**
 * Runs the Pact Verifier (it prints its report to stdout as it goes, logging errors only) and reads its results. A
 * connection to the provider that failed during the run leaves no verdict: the counts would mean nothing.
 */
export async function runPact(pact: PactModule, options: PactRunOptions): Promise<PactRun> {
  const guard = guardProxy();
  const replacements = keyReplacements(options.keys);
  /** The answers of 429 (rate limited) and 503 (unavailable) the provider gave during the run, by status. */
  const refusedNow = new Map<number, number>();
  const verifier = new pact.Verifier({
    providerBaseUrl: options.providerBaseUrl,
    pactUrls: [...options.pactUrls],
    stateHandlers: options.stateHandlers,
    requestFilter: (req: IncomingMessage, res: ServerResponse, next: () => void) => {
      guard.track(res);
      res.once('finish', () => {
        if (retryLaterStatuses.has(res.statusCode))
          refusedNow.set(res.statusCode, (refusedNow.get(res.statusCode) ?? 0) + 1);
      });
      const replacement = replacements.get(req.headers.authorization ?? '');
      if (replacement !== undefined) req.headers.authorization = replacement;
      next();
    },
    logLevel: 'error',
  });
  let run: PactRun;
  try {
    run = resultsOf(await verifier.verifyProvider()) ?? {
      outcome: 'could-not-run',
      reason: 'Pact reported no results',
    };
  } catch (error) {
    // A failed verification rejects with Pact's JSON results; anything else means it could not run.
    const message = error instanceof Error ? error.message : String(error);
    run = resultsOf(message) ?? { outcome: 'could-not-run', reason: `Pact could not verify: ${message}` };
  } finally {
    guard.release();
  }
  const lost = guard.lost();
  if (run.outcome === 'not-honoured' && refusedNow.size > 0) return notServedNow(refusedNow, options);
  if (run.interactions === undefined || lost === undefined) return run;
  return {
    outcome: 'unreachable',
    reason: `the connection to ${options.providerBaseUrl} failed during the run (${lost}); is the provider still running? Look at its log for a crash`,
  };
}

/**
 * No verdict for a run whose failures may be the provider declining to serve: a 429 or a 503 says nothing of the
 * contract, and Pact counts it as a failed interaction all the same.
 */
function notServedNow(refused: ReadonlyMap<number, number>, options: PactRunOptions): PactRun {
  const said = [...refused]
    .map(
      ([status, count]) =>
        `${count} ${count === 1 ? 'request' : 'requests'} ${status} (${status === 429 ? 'rate limited' : 'unavailable'})`,
    )
    .join(' and ');
  return {
    outcome: 'could-not-run',
    reason: `${options.providerBaseUrl} answered ${said} during the run, so its failed interactions say nothing of the contract; verify a deployment without a rate limit (or with one above the contract's few requests), once it is available`,
  };
}

/** Pact's JSON results (`interactionResults`, each `result: "OK"` or not) as a verdict; undefined when not JSON. */
function resultsOf(output: unknown): PactRun | undefined {
  let results: { interactionResults?: { description?: string; result?: string }[] };
  try {
    results = JSON.parse(String(output));
  } catch {
    return undefined;
  }
  if (!Array.isArray(results?.interactionResults)) return undefined;
  const failed = results.interactionResults
    .filter((interaction) => interaction.result !== 'OK')
    .map((interaction) => interaction.description ?? 'an interaction');
  return {
    outcome: failed.length === 0 ? 'honoured' : 'not-honoured',
    interactions: { passed: results.interactionResults.length - failed.length, failed },
  };
}

/**
 * The contract's `Authorization` values, each with the provider's that replaces it; the 401 interaction's wrong key
 * is left alone.
 */
function keyReplacements(keys: ProviderKeys): Map<string, string> {
  const replacements = new Map([[`Token ${contractApiKeys.Customer}`, `Token ${keys.Customer}`]]);
  if (keys.Testing !== undefined)
    replacements.set(`Token ${contractApiKeys.Testing}`, `Token ${keys.Testing}`);
  return replacements;
}

/** Copies a contract without the interactions that send the Testing key, noting each one in `skipped`. */
export function withoutTestingKey(file: string, copy: string, skipped: string[]): string {
  const contract = JSON.parse(readFileSync(file, 'utf8')) as { interactions?: Interaction[] };
  const testingHeader = `Token ${contractApiKeys.Testing}`;
  const kept = (contract.interactions ?? []).filter((interaction) => {
    const header = interaction.request?.headers?.authorization;
    const usesTesting = [header].flat().includes(testingHeader);
    if (usesTesting) skipped.push(`${interaction.description} (needs --testing-api-key)`);
    return !usesTesting;
  });
  writeFileSync(copy, JSON.stringify({ ...contract, interactions: kept }));
  return copy;
}

interface Interaction {
  readonly description?: string;
  readonly request?: { readonly headers?: Record<string, string | string[]> };
}
