import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { product } from '../errors.js';
import type { TenantHandle } from '../spec/types.js';
import { type PactModule, type ProviderKeys, runPact, withoutTestingKey } from './pactRun.js';
import { contractStateHandlers, forwardingStateHandlers } from './providerStates.js';
import { publishedContracts } from './publishedContract.js';
import { reach } from './reach.js';
import type { StateHandler } from './stateFailure.js';
import { type StateSource, setUpEachState, stateFailureReason, watchStates } from './stateFailure.js';
import type { ProviderVerification, VerifyOutcome } from './verification.js';
import { createVerifyTenant, invalidRequestsOf, removeVerifyTenant } from './verifyTenant.js';

export type { ProviderVerification, VerifyOutcome } from './verification.js';

/** What `verify` is given: its flags (their help is `verifyOptions` of src/cli/verify.ts), and what tests inject. */
export interface ProviderVerificationOptions {
  readonly providerBaseUrl: string;
  readonly apiKey?: string;
  readonly testingApiKey?: string;
  readonly stateSetupUrl?: string;
  readonly adminKey?: string;
  readonly allowReset?: boolean;
  /** Handlers to use instead of a state-change URL or a tenant (tests inject these); the requests then carry `apiKey`. */
  readonly stateHandlers?: Record<string, StateHandler>;
  /** Contract files; default: the published `contracts/*.json`. */
  readonly contracts?: readonly string[];
  /** Aborting stops waiting for Pact, removes the tenant, and resolves with the outcome `interrupted`. */
  readonly signal?: AbortSignal;
  /** Loads `@pact-foundation/pact`; default: a dynamic import (tests inject one that fails). */
  readonly loadPact?: () => Promise<PactModule>;
}

/** How the provider states are set up, and with which keys the requests go. */
interface StateSetUp {
  readonly handlers: Record<string, StateHandler>;
  readonly keys: ProviderKeys;
  readonly tenant?: TenantHandle;
  readonly description: string;
  readonly source: StateSource;
}

type Stopped = { readonly outcome: VerifyOutcome; readonly reason: string };

/**
 * Runs the Pact Verifier over the published contract against a provider, without touching the provider's data:
 * the states are set up in a tenant made for the run (`POST /__admin/tenants`) and removed afterwards, also on
 * failure and interruption. Pact prints its report to stdout. Never throws.
 */
export async function verifyProvider(options: ProviderVerificationOptions): Promise<ProviderVerification> {
  process.env.PACT_DO_NOT_TRACK ||= 'true';
  const stopped = (s: Stopped): ProviderVerification => ({ ...s, skipped: [], warnings: [] });
  const needsKey = options.stateSetupUrl !== undefined || options.stateHandlers !== undefined;
  if (needsKey && options.apiKey === undefined)
    return stopped({
      outcome: 'refused',
      reason:
        '--api-key KEY is required with --state-setup-url: the requests then carry your Customer API key, not the keys of a tenant made for the run',
    });
  const pact = await loadPact(options.loadPact);
  if ('reason' in pact) return stopped(pact);
  const unreachable = await firstUnreachable(options);
  if (unreachable !== undefined) return stopped(unreachable);
  if (options.signal?.aborted) return stopped(interrupted);

  const setUp = await stateSetUp(options);
  if ('reason' in setUp) return stopped(setUp);
  const verification = await replay(pact, setUp, options);
  if (setUp.tenant === undefined)
    return verification.outcome === 'could-not-run'
      ? { ...verification, warnings: [] }
      : { ...verification, setUp: setUp.description, warnings: [] };
  const { id } = setUp.tenant;
  // The tenant's journal goes with the tenant: what the mock found wrong in the requests is read first.
  const invalidRequests =
    verification.outcome === 'not-honoured'
      ? await invalidRequestsOf(options.providerBaseUrl, setUp.tenant, options.adminKey)
      : [];
  const found = invalidRequests.length === 0 ? {} : { invalidRequests };
  const problem = await removeVerifyTenant(options.providerBaseUrl, setUp.tenant, options.adminKey);
  return {
    ...verification,
    ...found,
    setUp: `in tenant ${id}, made for the run and ${problem === undefined ? 'removed afterwards' : 'left behind'}${unused(options)}`,
    warnings:
      problem === undefined
        ? []
        : [`could not remove tenant ${id} (${problem}); remove it with DELETE /__admin/tenants/${id}`],
  };
}

/**
 * The flags a run in a tenant of its own did not use, as its summary says them: `--api-key`, `--testing-api-key` and
 * `--allow-reset` apply to a provider that makes no tenants (or with `--state-setup-url`). Said, so that nobody takes
 * the key for checked.
 */
function unused(options: ProviderVerificationOptions): string {
  const flags = [
    options.apiKey === undefined ? [] : '--api-key',
    options.testingApiKey === undefined ? [] : '--testing-api-key',
    options.allowReset === true ? '--allow-reset' : [],
  ].flat();
  if (flags.length === 0) return '';
  return `; ${flags.join(' and ')} not used, as the provider makes tenants (${flags.length === 1 ? 'it applies' : 'they apply'} only to one that makes none, or with --state-setup-url)`;
}

const interrupted: Stopped = { outcome: 'interrupted', reason: 'interrupted before the end' };

const importPact = (): Promise<PactModule> => import('@pact-foundation/pact');

async function loadPact(load = importPact): Promise<PactModule | Stopped> {
  try {
    return await load();
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const reason = ['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'].includes(code ?? '')
      ? 'needs @pact-foundation/pact, which is not installed here'
      : `could not load @pact-foundation/pact (${message})`;
    return {
      outcome: 'missing-dependency',
      reason: `${reason}; install it next to ${product} (npm i -D @pact-foundation/pact)`,
    };
  }
}

/** The provider, then the state-change URL: the first that accepts no connection, and why. */
async function firstUnreachable(options: ProviderVerificationOptions): Promise<Stopped | undefined> {
  const provider = await reach(options.providerBaseUrl);
  if (!provider.ok)
    return {
      outcome: 'unreachable',
      reason: `cannot reach ${options.providerBaseUrl} (${provider.error}); is the provider running? Start it (npx ${product} serve) or correct --provider-base-url`,
    };
  if (options.stateSetupUrl === undefined) return undefined;
  const stateUrl = await reach(options.stateSetupUrl);
  if (stateUrl.ok) return undefined;
  return {
    outcome: 'unreachable',
    reason: `cannot reach the state-change URL ${options.stateSetupUrl} (${stateUrl.error}); is it running? Start it or correct --state-setup-url`,
  };
}

/** Injected handlers, a state-change URL, a tenant of the run's own, or (allowed only) the scope of `apiKey`. */
async function stateSetUp(options: ProviderVerificationOptions): Promise<StateSetUp | Stopped> {
  const userKeys = (apiKey: string): ProviderKeys => ({ Customer: apiKey, Testing: options.testingApiKey });
  if (options.stateHandlers !== undefined && options.apiKey !== undefined)
    return {
      handlers: options.stateHandlers,
      keys: userKeys(options.apiKey),
      description: 'given handlers',
      source: { kind: 'handlers' },
    };
  if (options.stateSetupUrl !== undefined && options.apiKey !== undefined)
    return {
      handlers: forwardingStateHandlers(options.stateSetupUrl, options.contracts ?? publishedContracts()),
      keys: userKeys(options.apiKey),
      description: `states set up by ${options.stateSetupUrl}`,
      source: { kind: 'url' },
    };
  const made = await createVerifyTenant(options.providerBaseUrl, options.adminKey);
  if (made.kind === 'created')
    return {
      handlers: contractStateHandlers(options.providerBaseUrl, {
        apiKey: made.tenant.api_keys.Customer,
        adminKey: options.adminKey,
      }),
      keys: made.tenant.api_keys,
      tenant: made.tenant,
      description: `in tenant ${made.tenant.id}`,
      source: { kind: 'admin', flag: 'tenant' },
    };
  if (made.kind === 'refused') return { outcome: 'refused', reason: made.reason };
  if (made.kind === 'failed') return { outcome: 'could-not-run', reason: made.reason };
  const url = options.providerBaseUrl;
  if (options.allowReset !== true)
    return {
      outcome: 'refused',
      reason: `${url} has no tenants API (POST /__admin/tenants answered ${made.status}), so verify cannot work in a tenant of its own, and setting its provider states up would reset the groups of your API key's scope. Pass --allow-reset to allow that, or --state-setup-url URL to set the states up yourself`,
    };
  if (options.apiKey === undefined)
    return {
      outcome: 'refused',
      reason: `--api-key KEY is required with --allow-reset: ${url} has no tenants API, so the requests carry your Customer API key`,
    };
  return {
    handlers: contractStateHandlers(url, { apiKey: options.apiKey, adminKey: options.adminKey }),
    keys: userKeys(options.apiKey),
    description: 'states set up by removing the groups of the scope of --api-key, as --allow-reset allows',
    source: { kind: 'admin', flag: 'allow-reset' },
  };
}

/**
 * Sets each provider state up once, then replays the contracts through Pact, or stops waiting for it when the run
 * is interrupted. No verdict when a state could not be set up, before the run or during it: Pact replays an
 * interaction whose state failed all the same, so its result would say nothing about the provider.
 */
async function replay(
  pact: PactModule,
  setUp: StateSetUp,
  options: ProviderVerificationOptions,
): Promise<Omit<ProviderVerification, 'warnings'>> {
  if (options.signal?.aborted) return { ...interrupted, skipped: [] };
  const contracts = options.contracts ?? publishedContracts();
  const states = watchStates(setUp.handlers);
  const unset = await Promise.race([setUpEachState(states, contracts), abortion(options.signal)]);
  if (unset === 'aborted') return { ...interrupted, skipped: [] };
  if (unset !== undefined)
    return {
      outcome: 'could-not-run',
      reason: `the provider states could not be set up: ${stateFailureReason(unset, setUp.source)}`,
      skipped: [],
    };
  const work = mkdtempSync(join(tmpdir(), `${product}-verify-`));
  try {
    const skipped: string[] = [];
    const pactUrls =
      setUp.keys.Testing === undefined
        ? contracts.map((file, index) => withoutTestingKey(file, join(work, `${index}.json`), skipped))
        : contracts;
    const run = await Promise.race([
      runPact(pact, {
        providerBaseUrl: options.providerBaseUrl,
        pactUrls,
        stateHandlers: states.handlers,
        keys: setUp.keys,
      }),
      abortion(options.signal),
    ]);
    if (run === 'aborted') return { ...interrupted, skipped };
    const unsetDuringRun = states.failure();
    if (run.interactions === undefined || unsetDuringRun === undefined) return { ...run, skipped };
    return {
      outcome: 'could-not-run',
      reason: `a provider state could not be set up during the run, so its results say nothing: ${stateFailureReason(unsetDuringRun, setUp.source)}`,
      skipped,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Resolves when `signal` aborts; never when there is none. */
const abortion = (signal: AbortSignal | undefined): Promise<'aborted'> =>
  signal === undefined ? new Promise(() => undefined) : once(signal, 'abort').then(() => 'aborted');
