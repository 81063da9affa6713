import { parseArgs } from 'node:util';
import { product } from '../errors.js';
import { unknownFlag } from './suggest.js';

/** Each flag of `verify` and its help line: the one table --help is printed from. */
export const verifyFlags = {
  'provider-base-url': {
    value: 'URL',
    help: 'the implementation to verify, e.g. http://127.0.0.1:4010 (required)',
  },
  'api-key': {
    value: 'KEY',
    help: "its Customer API key; replaces the contract's key in requests that expect success (required)",
  },
  'testing-api-key': {
    value: 'KEY',
    help: 'its Testing API key; without it, interactions that need one are skipped',
  },
  'state-setup-url': {
    value: 'URL',
    help: "a Pact state-change URL (POST { state, params, action }); default: the provider's /__admin API",
  },
  'admin-key': {
    value: 'KEY',
    help: 'X-Admin-Key for the /__admin API, when the provider has one (env USER_GROUP_MOCK_ADMIN_KEY)',
  },
  help: { value: '', help: 'print this help' },
} as const;

export function verifyHelp(): string {
  const lines = Object.entries(verifyFlags).map(
    ([name, flag]) => `  --${name}${flag.value ? ` ${flag.value}` : ''}\n      ${flag.help}`,
  );
  return `Usage: user-group-mock verify --provider-base-url URL --api-key KEY [flags]

Verifies an implementation of the User Group Service against the published Pact contract (contracts/*.json)
and prints Pact's report. Exits 0 when every interaction passes, 1 when one fails, 2 on a usage error.
Provider states are set up with POST /__admin/reset and POST /__admin/groups unless --state-setup-url is given.

Flags:
${lines.join('\n')}
`;
}

/** `user-group-mock verify`: verifies a provider against the published contract. Returns the exit code. */
export async function runVerify(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
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
  if (typeof providerBaseUrl !== 'string' || !URL.canParse(providerBaseUrl))
    return usage('--provider-base-url URL is required, e.g. --provider-base-url http://127.0.0.1:4010');
  if (typeof apiKey !== 'string' || apiKey.trim() === '')
    return usage("--api-key KEY is required: the provider's Customer API key");
  const testingApiKey = values['testing-api-key'];
  const stateSetupUrl = values['state-setup-url'];
  if (stateSetupUrl !== undefined && !URL.canParse(String(stateSetupUrl)))
    return usage(`--state-setup-url "${stateSetupUrl}" is not a URL`);

  const adminKey = values['admin-key'] ?? (env.USER_GROUP_MOCK_ADMIN_KEY || undefined);

  const { verifyProvider } = await import('../contract/verifyProvider.js');
  const result = await verifyProvider({
    providerBaseUrl,
    apiKey,
    ...(typeof testingApiKey === 'string' ? { testingApiKey } : {}),
    ...(typeof stateSetupUrl === 'string' ? { stateSetupUrl } : {}),
    ...(typeof adminKey === 'string' ? { adminKey } : {}),
  });
  for (const skipped of result.skipped) process.stdout.write(`${product}: skipped: ${skipped}\n`);
  if (!result.ok) {
    process.stderr.write(
      `${product}: ${providerBaseUrl} does not honour the contract.\n${result.failure ?? ''}\n`,
    );
    return 1;
  }
  process.stdout.write(`${product}: ${providerBaseUrl} honours the published contract.\n`);
  return 0;
}

function usage(message: string): number {
  process.stderr.write(
    `${product}: ${message.replace(/\.$/, '')}. Run "user-group-mock verify --help" for the flags.\n`,
  );
  return 2;
}
