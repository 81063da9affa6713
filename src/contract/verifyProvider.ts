import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { product } from '../errors.js';
import { contractStateHandlers, type StateHandler } from './providerStates.js';
import { contractApiKeys, publishedContracts } from './publishedContract.js';
import { forwardingStateHandlers } from './stateSetupUrl.js';

export interface ProviderVerificationOptions {
  /** The implementation to verify, e.g. `http://127.0.0.1:4010` or a staging copy of the real service. */
  readonly providerBaseUrl: string;
  /** The provider's Customer API key: replaces the contract's Customer key in every request that carries it. */
  readonly apiKey: string;
  /** The provider's Testing API key; without it, interactions that need a Testing key are skipped. */
  readonly testingApiKey?: string;
  /** A Pact state-change URL (POST `{ state, params, action }`); default: the provider's own `/__admin` API. */
  readonly stateSetupUrl?: string;
  /** The `X-Admin-Key` for the provider's `/__admin` API, when it was started with one. */
  readonly adminKey?: string;
  /** Handlers to use instead of either (tests inject these). */
  readonly stateHandlers?: Record<string, StateHandler>;
  /** Contract files; default: the published `contracts/*.json`. */
  readonly contracts?: readonly string[];
}

export interface ProviderVerification {
  readonly ok: boolean;
  /** Descriptions of interactions that were not verified, and why. */
  readonly skipped: readonly string[];
  /** Why verification failed, when it did (Pact prints its own report to stdout as it runs). */
  readonly failure?: string;
}

/**
 * Runs the Pact Verifier over the published contract against a provider. Pact prints its report to stdout;
 * the result says whether every interaction passed. Never throws.
 */
export async function verifyProvider(options: ProviderVerificationOptions): Promise<ProviderVerification> {
  process.env.PACT_DO_NOT_TRACK ||= 'true';
  let pact: typeof import('@pact-foundation/pact');
  try {
    pact = await import('@pact-foundation/pact');
  } catch {
    const failure = `${product}: verify needs @pact-foundation/pact; install it next to user-group-mock (npm i -D @pact-foundation/pact)`;
    return { ok: false, skipped: [], failure };
  }
  const work = mkdtempSync(join(tmpdir(), `${product}-verify-`));
  try {
    const skipped: string[] = [];
    const pactUrls = (options.contracts ?? publishedContracts()).map((file, index) =>
      options.testingApiKey === undefined
        ? withoutTestingKey(file, join(work, `${index}.json`), skipped)
        : file,
    );
    const stateHandlers =
      options.stateHandlers ??
      (options.stateSetupUrl === undefined
        ? contractStateHandlers(options.providerBaseUrl, {
            apiKey: options.apiKey,
            ...(options.adminKey === undefined ? {} : { adminKey: options.adminKey }),
          })
        : forwardingStateHandlers(options.stateSetupUrl, pactUrls));
    const verifier = new pact.Verifier({
      providerBaseUrl: options.providerBaseUrl,
      pactUrls,
      stateHandlers,
      requestFilter: replaceContractKeys(options),
      logLevel: 'error',
    });
    await verifier.verifyProvider();
    return { ok: true, skipped };
  } catch (error) {
    return { ok: false, skipped: [], failure: summarise(error) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Swaps the contract's API keys for the provider's; the 401 interaction's wrong key is left alone. */
function replaceContractKeys(options: ProviderVerificationOptions) {
  const replacements = new Map<string, string>([
    [`Token ${contractApiKeys.Customer}`, `Token ${options.apiKey}`],
  ]);
  if (options.testingApiKey !== undefined)
    replacements.set(`Token ${contractApiKeys.Testing}`, `Token ${options.testingApiKey}`);
  return (req: IncomingMessage, _res: unknown, next: () => void): void => {
    const replacement = replacements.get(req.headers.authorization ?? '');
    if (replacement !== undefined) req.headers.authorization = replacement;
    next();
  };
}

/** Copies a contract without the interactions that send the Testing key, noting each one in `skipped`. */
function withoutTestingKey(file: string, copy: string, skipped: string[]): string {
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

/** Pact rejects with its JSON results; the readable report has already been printed. */
function summarise(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  try {
    const results = JSON.parse(text) as { errors?: { interaction?: string }[] };
    const failed = (results.errors ?? []).map((e) => `  - ${e.interaction ?? 'an interaction'}`);
    if (failed.length > 0) return `${failed.length} interaction(s) failed:\n${failed.join('\n')}`;
  } catch {
    // not Pact's JSON: the message is the reason
  }
  return text;
}
