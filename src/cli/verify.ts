import { parseArgs } from 'node:util';
import type { PactModule } from '../contract/pactRun.js';
import { product } from '../errors.js';
import { unknownFlag } from './suggest.js';
import { exitCodesHelp, reportVerification, verifyExitCodes } from './verifyReport.js';

/** Each flag of `verify` and its help line: the one table --help is printed from. */
export const verifyFlags = {
  'provider-base-url': {
    value: 'URL',
    help: 'the implementation to verify, e.g. http://127.0.0.1:4010 (required)',
  },
  'api-key': {
    value: 'KEY',
    help: "its Customer API key, for runs without a tenant of their own (--state-setup-url, --allow-reset); replaces the contract's key in requests that expect success",
  },
  'testing-api-key': {
    value: 'KEY',
    help: 'its Testing API key, in those runs; without it, interactions that need one are skipped',
  },
  'state-setup-url': {
    value: 'URL',
    help: 'a Pact state-change URL (POST { state, params, action }) that sets the states up instead of a tenant',
  },
  'admin-key': {
    value: 'KEY',
    help: 'X-Admin-Key for the /__admin API, when the provider has one (env USER_GROUP_MOCK_ADMIN_KEY)',
  },
  'allow-reset': {
    value: '',
    help: 'on a provider without POST /__admin/tenants, set the states up by resetting the scope of --api-key (its groups are removed); refused without this flag',
  },
  help: { value: '', help: 'print this help' },
} as const;

export function verifyHelp(): string {
  const lines = Object.entries(verifyFlags).map(
    ([name, flag]) => `  --${name}${flag.value ? ` ${flag.value}` : ''}\n      ${flag.help}`,
  );
  return `Usage: user-group-mock verify --provider-base-url URL [flags]

Verifies an implementation of the User Group Service against the published Pact contract (contracts/*.json),
prints Pact's report, and ends with one summary line.
The provider's data is left alone: the states are set up in a tenant made for the run (POST /__admin/tenants),
with that tenant's own keys, and the tenant is removed afterwards, also when the run fails or is interrupted.
A provider without that API is refused unless --allow-reset or --state-setup-url says how to set the states up.

Flags:
${lines.join('\n')}

${exitCodesHelp()}`;
}

/** `user-group-mock verify`: verifies a provider against the published contract. Returns the exit code. */
export async function runVerify(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  dependencies: VerifyDependencies = {},
): Promise<number> {
  let values: Partial<Record<keyof typeof verifyFlags, string | boolean>>;
  const options = Object.fromEntries(
    Object.entries(verifyFlags).map(([name, flag]) => [name, { type: flag.value ? 'string' : 'boolean' }]),
  ) as Record<string, { type: 'string' | 'boolean' }>;
  try {
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return usage(unknownFlag(argv, options) ?? (error as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(verifyHelp());
    return 0;
  }
  const providerBaseUrl = values['provider-base-url'];
  const apiKey = values['api-key'];
  if (typeof providerBaseUrl !== 'string')
    return usage('--provider-base-url URL is required, e.g. --provider-base-url http://127.0.0.1:4010');
  if (!/^https?:$/.test(protocolOf(providerBaseUrl)))
    return usage(
      `--provider-base-url "${providerBaseUrl}" is not an http or https URL; write it with its scheme, e.g. http://${providerBaseUrl.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')}`,
    );
  if (typeof apiKey === 'string' && apiKey.trim() === '')
    return usage("--api-key KEY is empty: give the provider's Customer API key, or leave the flag out");
  const testingApiKey = values['testing-api-key'];
  const stateSetupUrl = values['state-setup-url'];
  if (stateSetupUrl !== undefined && !URL.canParse(String(stateSetupUrl)))
    return usage(`--state-setup-url "${stateSetupUrl}" is not a URL`);

  const adminKey = values['admin-key'] ?? (env.USER_GROUP_MOCK_ADMIN_KEY || undefined);

  const { verifyProvider } = await import('../contract/verifyProvider.js');
  const interruption = interruptible();
  let result: Awaited<ReturnType<typeof verifyProvider>>;
  try {
    result = await verifyProvider({
      providerBaseUrl,
      ...(typeof apiKey === 'string' ? { apiKey } : {}),
      ...(typeof testingApiKey === 'string' ? { testingApiKey } : {}),
      ...(typeof stateSetupUrl === 'string' ? { stateSetupUrl } : {}),
      ...(typeof adminKey === 'string' ? { adminKey } : {}),
      allowReset: values['allow-reset'] === true,
      signal: interruption.signal,
      ...(dependencies.loadPact === undefined ? {} : { loadPact: dependencies.loadPact }),
    });
  } finally {
    interruption.release();
  }
  if (result.outcome === 'interrupted' && interruption.caught !== undefined)
    result = { ...result, reason: `interrupted by ${interruption.caught} before the end` };
  const code = reportVerification(result, providerBaseUrl, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
  // Pact's native verifier may still be running: end the way the signal asked, now that the tenant is gone.
  if (interruption.caught !== undefined) process.kill(process.pid, interruption.caught);
  return code;
}

/** What `runVerify` loads on demand (tests inject a Pact loader that fails). */
export interface VerifyDependencies {
  readonly loadPact?: () => Promise<PactModule>;
}

/**
 * SIGINT and SIGTERM abort the run (so that its tenant is removed) instead of ending the process at once; a second
 * signal ends it at once. `release` restores the default handling.
 */
function interruptible(): { signal: AbortSignal; caught?: NodeJS.Signals; release: () => void } {
  const controller = new AbortController();
  const state: { signal: AbortSignal; caught?: NodeJS.Signals; release: () => void } = {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
  function onSignal(signal: NodeJS.Signals): void {
    if (state.caught !== undefined) {
      state.release();
      process.kill(process.pid, signal);
      return;
    }
    state.caught = signal;
    process.stderr.write(
      `${product}: ${signal} received; stopping once the tenant made for the run is removed\n`,
    );
    controller.abort();
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return state;
}

function protocolOf(url: string): string {
  return URL.canParse(url) ? new URL(url).protocol : '';
}

function usage(message: string): number {
  process.stderr.write(
    `${product}: ${message.replace(/\.$/, '')}. Run "user-group-mock verify --help" for the flags.\n`,
  );
  return verifyExitCodes.refused.code;
}
