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
  const verifier = new pact.Verifier({
    providerBaseUrl: options.providerBaseUrl,
    pactUrls: [...options.pactUrls],
    stateHandlers: options.stateHandlers,
    requestFilter: (req: IncomingMessage, res: ServerResponse, next: () => void) => {
      guard.track(res);
      const replacement = replacements.get(req.headers.authorization ?? '');
      if (replacement !== undefined) req.headers.authorization = replacement;
      next();
    },
    logLevel: 'error',
  });
  let run: PactRun;
  let refusedNow: ReadonlyMap<number, number> = new Map();
  try {
    const results = resultsOf(await verifier.verifyProvider());
    run = results?.run ?? { outcome: 'could-not-run', reason: 'Pact reported no results' };
  } catch (error) {
    // A failed verification rejects with Pact's JSON results; anything else means it could not run.
    const message = error instanceof Error ? error.message : String(error);
    const results = resultsOf(message);
    run = results?.run ?? { outcome: 'could-not-run', reason: `Pact could not verify: ${message}` };
    refusedNow = results?.refusedNow ?? refusedNow;
  } finally {
    guard.release();
  }
  const lost = guard.lost();
  if (refusedNow.size > 0) return notServedNow(refusedNow, options);
  if (run.interactions === undefined || lost === undefined) return run;
  return {
    outcome: 'unreachable',
    reason: `the connection to ${options.providerBaseUrl} failed during the run (${lost}); is the provider still running? Look at its log for a crash`,
  };
}

/**
 * No verdict for a run in which the provider declined to serve interactions: a 429 or a 503 where the interaction
 * expects another status says nothing of the contract (and a state set up through a throttled provider may fail
 * the interactions after it), yet Pact counts it as a failed interaction all the same.
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

/** One of Pact's interaction results: `result` is "OK" or not, and a failure lists its mismatches. */
interface InteractionResult {
  readonly description?: string;
  readonly result?: string;
  readonly mismatch?: {
    readonly mismatches?: readonly { readonly type?: string; readonly actual?: unknown }[];
  };
}

/**
 * Pact's JSON results (`interactionResults`) as a verdict, and the failed interactions the provider answered 429 or
 * 503 where they expect another status (`StatusMismatch`), by that status; undefined when not JSON. An interaction
 * that expects a 429 and got it passed, so it is not counted: the verdict stands.
 */
function resultsOf(output: unknown): { run: PactRun; refusedNow: Map<number, number> } | undefined {
  let results: { interactionResults?: InteractionResult[] };
  try {
    results = JSON.parse(String(output));
  } catch {
    return undefined;
  }
  if (!Array.isArray(results?.interactionResults)) return undefined;
  const failedResults = results.interactionResults.filter((interaction) => interaction.result !== 'OK');
  const refusedNow = new Map<number, number>();
  for (const interaction of failedResults) {
    const status = interaction.mismatch?.mismatches?.find((found) => found.type === 'StatusMismatch')?.actual;
    if (typeof status === 'number' && retryLaterStatuses.has(status))
      refusedNow.set(status, (refusedNow.get(status) ?? 0) + 1);
  }
  const failed = failedResults.map((interaction) => interaction.description ?? 'an interaction');
  return {
    run: {
      outcome: failed.length === 0 ? 'honoured' : 'not-honoured',
      interactions: { passed: results.interactionResults.length - failed.length, failed },
    },
    refusedNow,
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
