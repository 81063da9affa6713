import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { PactModule } from '../contract/pactRun.js';
import { product } from '../errors.js';
import { recordingPactClient } from '../proxy/recording.js';
import { type Settings, sharedOptions } from '../runtime/options.js';
import { operationPathInBase } from '../spec/serviceBase.js';
import { commandHelp, commandLine, flagsOf, readFlags } from './flags.js';
import { onStopSignals } from './runUntilStopped.js';
import { exitCodesHelp, reportVerification, verifyExitCodes } from './verifyReport.js';

const url = { kind: 'string', value: 'URL', env: '' } as const;
const key = { kind: 'string', value: 'KEY', env: '' } as const;

/** Every setting of `verify`: the one table its flags and --help come from. */
export const verifyOptions = {
  providerBaseUrl: { ...url, help: 'the implementation to verify, e.g. http://127.0.0.1:4010 (required)' },
  apiKey: {
    ...key,
    help: "its Customer API key, for runs without a tenant of their own (--state-setup-url, --allow-reset); replaces the contract's key in requests that expect success",
  },
  testingApiKey: {
    ...key,
    help: 'its Testing API key, in those runs; without it, interactions that need one are skipped',
  },
  stateSetupUrl: {
    ...url,
    help: 'a Pact state-change URL (POST { state, params, action }) that sets the states up instead of a tenant',
  },
  adminKey: {
    ...sharedOptions.adminKey,
    help: 'X-Admin-Key for the /__admin API, when the provider has one',
  },
  pact: {
    kind: 'string',
    value: 'FILE',
    multiple: true,
    help: 'a pact file to verify instead of the published contract, e.g. your own consumer pact; repeatable (env: comma-separated)',
    fromText: (files) => files.map((file) => file.trim()).filter((file) => file !== ''),
  },
  allowReset: {
    kind: 'boolean',
    env: '',
    help: 'on a provider without POST /__admin/tenants, set the states up in the scope of --api-key, removing its groups (DELETE /__admin/groups, else POST /__admin/reset); refused without this flag',
  },
  help: sharedOptions.help,
} as const satisfies Settings;

export const verifyFlags = flagsOf(verifyOptions);

export const verifyHelp = (): string =>
  commandHelp(
    'verify --provider-base-url URL [flags]',
    `Verifies an implementation of the User Group Service against the published Pact contract (contracts/*.json), or
the pact files given with --pact, prints Pact's report, and ends with one summary line.
The provider's data is left alone: the states are set up in a tenant made for the run (POST /__admin/tenants),
with that tenant's own keys, and the tenant is removed afterwards, also when the run fails or is interrupted.
A provider without that API is refused unless --allow-reset or --state-setup-url says how to set the states up.`,
    verifyOptions,
    `\n${exitCodesHelp()}`,
  );

/** `user-group-mock verify`: verifies a provider against the published contract. Returns the exit code. */
export async function runVerify(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  dependencies: VerifyDependencies = {},
): Promise<number> {
  const options = commandLine(() => readFlags('verify', verifyOptions, argv, env).options, verifyHelp);
  if (typeof options === 'number') return options;
  const { providerBaseUrl, apiKey, testingApiKey, stateSetupUrl, adminKey } = options as Partial<
    Record<string, string>
  >;
  if (providerBaseUrl === undefined)
    return usage('--provider-base-url URL is required, e.g. --provider-base-url http://127.0.0.1:4010');
  if (!/^https?:$/.test(URL.canParse(providerBaseUrl) ? new URL(providerBaseUrl).protocol : ''))
    return usage(
      `--provider-base-url "${providerBaseUrl}" is not an http or https URL; write it with its scheme, e.g. http://${providerBaseUrl.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')}`,
    );
  const pathProblem = operationPathInBase(new URL(providerBaseUrl), '--provider-base-url');
  if (pathProblem !== undefined) return usage(pathProblem);
  if (apiKey !== undefined && apiKey.trim() === '')
    return usage("--api-key KEY is empty: give the provider's Customer API key, or leave the flag out");
  if (stateSetupUrl !== undefined && !URL.canParse(stateSetupUrl))
    return usage(`--state-setup-url "${stateSetupUrl}" is not a URL`);
  const pacts = (options.pact as string[] | undefined) ?? [];
  const pactProblem = pacts.map(pactFileProblem).find((problem) => problem !== undefined);
  if (pactProblem !== undefined) return usage(pactProblem);

  if (dependencies.colourless !== undefined) return dependencies.colourless();
  const { verifyProvider } = await import('../contract/verifyProvider.js');
  const interruption = interruptible();
  let result: Awaited<ReturnType<typeof verifyProvider>>;
  try {
    result = await verifyProvider({
      providerBaseUrl,
      apiKey,
      testingApiKey,
      stateSetupUrl,
      adminKey,
      allowReset: options.allowReset === true,
      contracts: pacts.length === 0 ? undefined : pacts.map((file) => resolve(file)),
      signal: interruption.signal,
      loadPact: dependencies.loadPact,
    });
  } finally {
    interruption.release();
  }
  const caught = interruption.signal.aborted ? (interruption.signal.reason as NodeJS.Signals) : undefined;
  if (result.outcome === 'interrupted' && caught !== undefined)
    result = { ...result, reason: `interrupted by ${caught} before the end` };
  const contract =
    pacts.length === 0
      ? 'the published contract'
      : `the pact${pacts.length === 1 ? '' : 's'} ${pacts.join(', ')}`;
  const code = reportVerification(result, providerBaseUrl, contract, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
  // Pact's native verifier may still be running: end the way the signal asked, now that the tenant is gone.
  if (caught !== undefined) process.kill(process.pid, caught);
  return code;
}

/** What `runVerify` loads on demand (tests inject a Pact loader that fails). */
export interface VerifyDependencies {
  readonly loadPact?: () => Promise<PactModule>;
  /** Runs the checked command line in a child whose output is stripped of colour; resolves with its exit code. */
  readonly colourless?: () => Promise<number>;
}

/**
 * SIGINT and SIGTERM abort the run (so that its tenant is removed) instead of ending the process at once: `signal`
 * aborts, the signal its reason. The first signal gives the default handling back, so that a second one ends the
 * process at once; `release` gives it back too.
 */
function interruptible(): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const release = onStopSignals((signal) => {
    release();
    process.stderr.write(
      `${product}: ${signal} received; stopping once the tenant made for the run is removed\n`,
    );
    controller.abort(signal);
  });
  return { signal: controller.signal, release };
}

/** Why a --pact file cannot be verified (missing, not JSON, no interactions, the proxy's record), or undefined when it can. */
function pactFileProblem(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return code === 'ENOENT'
      ? `--pact "${file}" does not exist (looked in ${dirname(resolve(file))}); give the path of the pact file your consumer tests wrote`
      : `--pact "${file}" cannot be read (${message})`;
  }
  let pact: { interactions?: unknown; metadata?: { client?: { name?: unknown } } };
  try {
    pact = JSON.parse(text) as typeof pact;
  } catch (error) {
    return `--pact "${file}" is not JSON (${(error as Error).message}); give a pact file, as Pact's consumer tests write it`;
  }
  if (!Array.isArray(pact?.interactions))
    return `--pact "${file}" has no "interactions" array, so it is not a pact file; give one as Pact's consumer tests write it`;
  if (pact.metadata?.client?.name === recordingPactClient)
    return `--pact "${file}" is the proxy's record of traffic (its metadata.client is "${recordingPactClient}"), not a contract: its interactions have no provider states, hold the tokens that service issued and the key <API_KEY>, so each would fail; give the pact your client's own Pact tests write (docs/integrators.md, "Your own pact, from any language"), or check the traffic as it passes with the proxy`;
  return undefined;
}

function usage(message: string): number {
  process.stderr.write(
    `${product}: ${message.replace(/\.$/, '')}. Run "user-group-mock verify --help" for the flags.\n`,
  );
  return verifyExitCodes.refused.code;
}
