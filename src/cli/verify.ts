import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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
  pact: {
    value: 'FILE',
    help: 'a pact file to verify instead of the published contract, e.g. your own consumer pact; repeatable (env USER_GROUP_MOCK_PACT, comma-separated)',
  },
  'allow-reset': {
    value: '',
    help: 'on a provider without POST /__admin/tenants, set the states up in the scope of --api-key, removing its groups (DELETE /__admin/groups, else POST /__admin/reset); refused without this flag',
  },
  help: { value: '', help: 'print this help' },
} as const;

export function verifyHelp(): string {
  const lines = Object.entries(verifyFlags).map(
    ([name, flag]) => `  --${name}${flag.value ? ` ${flag.value}` : ''}\n      ${flag.help}`,
  );
  return `Usage: user-group-mock verify --provider-base-url URL [flags]

Verifies an implementation of the User Group Service against the published Pact contract (contracts/*.json), or
the pact files given with --pact, prints Pact's report, and ends with one summary line.
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
  let values: Partial<Record<keyof typeof verifyFlags, string | boolean | Array<string | boolean>>>;
  const options = Object.fromEntries(
    Object.entries(verifyFlags).map(([name, flag]) => [
      name,
      { type: flag.value ? 'string' : 'boolean', ...(name === 'pact' ? { multiple: true } : {}) },
    ]),
  ) as Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
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
  const pacts =
    (values.pact as string[] | undefined) ??
    env.USER_GROUP_MOCK_PACT?.split(',')
      .map((file) => file.trim())
      .filter((file) => file !== '');
  const pactProblem = pacts?.map(pactFileProblem).find((problem) => problem !== undefined);
  if (pactProblem !== undefined) return usage(pactProblem);

  if (dependencies.colourless !== undefined) return dependencies.colourless();
  const { verifyProvider } = await import('../contract/verifyProvider.js');
  const interruption = interruptible();
  const restoreWarnings = withoutDependencyDeprecations();
  let result: Awaited<ReturnType<typeof verifyProvider>>;
  try {
    result = await verifyProvider({
      providerBaseUrl,
      ...(typeof apiKey === 'string' ? { apiKey } : {}),
      ...(typeof testingApiKey === 'string' ? { testingApiKey } : {}),
      ...(typeof stateSetupUrl === 'string' ? { stateSetupUrl } : {}),
      ...(typeof adminKey === 'string' ? { adminKey } : {}),
      allowReset: values['allow-reset'] === true,
      ...(pacts === undefined || pacts.length === 0 ? {} : { contracts: pacts.map((file) => resolve(file)) }),
      signal: interruption.signal,
      ...(dependencies.loadPact === undefined ? {} : { loadPact: dependencies.loadPact }),
    });
  } finally {
    interruption.release();
    restoreWarnings();
  }
  if (result.outcome === 'interrupted' && interruption.caught !== undefined)
    result = { ...result, reason: `interrupted by ${interruption.caught} before the end` };
  const contract =
    pacts === undefined || pacts.length === 0
      ? 'the published contract'
      : pacts.length === 1
        ? `the pact ${pacts[0]}`
        : `the pacts ${pacts.join(', ')}`;
  const code = reportVerification(result, providerBaseUrl, contract, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
  // Pact's native verifier may still be running: end the way the signal asked, now that the tenant is gone.
  if (interruption.caught !== undefined) process.kill(process.pid, interruption.caught);
  return code;
}

/**
 * Pact's proxy (http-proxy) calls `util._extend`, which Node 22 and later report as DEP0060 on every run: a
 * dependency's deprecation the user can do nothing about, printed after the run's summary line. Only that code is
 * held back while Pact runs; every other warning is printed as usual.
 */
function withoutDependencyDeprecations(): () => void {
  const emit = process.emitWarning;
  const held = new Set(['DEP0060']);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const [second, third] = rest;
    const code = typeof second === 'object' && second !== null ? (second as { code?: unknown }).code : third;
    if (typeof code === 'string' && held.has(code)) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  return () => {
    process.emitWarning = emit;
  };
}

/** What `runVerify` loads on demand (tests inject a Pact loader that fails). */
export interface VerifyDependencies {
  readonly loadPact?: () => Promise<PactModule>;
  /** Runs the checked command line in a child whose output is stripped of colour; resolves with its exit code. */
  readonly colourless?: () => Promise<number>;
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

/** Why a --pact file cannot be verified (missing, not JSON, no interactions), or undefined when it can. */
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
  let pact: { interactions?: unknown };
  try {
    pact = JSON.parse(text) as { interactions?: unknown };
  } catch (error) {
    return `--pact "${file}" is not JSON (${(error as Error).message}); give a pact file, as Pact's consumer tests write it`;
  }
  if (!Array.isArray(pact?.interactions))
    return `--pact "${file}" has no "interactions" array, so it is not a pact file; give one as Pact's consumer tests write it`;
  return undefined;
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
