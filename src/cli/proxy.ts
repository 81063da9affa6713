import { parseArgs } from 'node:util';
import { product } from '../errors.js';
import { ListenError } from '../http/listen.js';
import {
  createValidatingProxy,
  type ValidatingProxy,
  type ValidatingProxyOptions,
} from '../proxy/createValidatingProxy.js';
import { pactPathOf } from '../proxy/recording.js';
import { integer } from './args.js';
import { stopSignal } from './run.js';
import { unknownFlag } from './suggest.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Each flag of `proxy`, its environment variable, and its help line: the one table --help is printed from. */
export const proxyFlags = {
  target: {
    type: 'string',
    env: 'USER_GROUP_MOCK_TARGET',
    help: 'base URL of the service to check (required), e.g. https://staging.example.com',
  },
  host: { type: 'string', env: 'USER_GROUP_MOCK_HOST', help: 'address to listen on (default 127.0.0.1)' },
  port: {
    type: 'string',
    env: 'USER_GROUP_MOCK_PORT',
    help: 'port to listen on; 0 picks a free one (default 4010)',
  },
  strict: {
    type: 'boolean',
    env: 'USER_GROUP_MOCK_STRICT',
    help: 'answers may carry no field the document does not name (the default)',
  },
  lenient: {
    type: 'boolean',
    env: 'USER_GROUP_MOCK_LENIENT',
    help: 'answers may carry extra fields (a real service may add some)',
  },
  'block-invalid': {
    type: 'boolean',
    env: 'USER_GROUP_MOCK_BLOCK_INVALID',
    help: "answer an invalid request with the mock's error instead of forwarding it",
  },
  record: {
    type: 'string',
    env: 'USER_GROUP_MOCK_RECORD',
    help: 'write what is seen, as it goes and on exit, as a fixtures file PATH (for serve --fixtures) and a Pact file beside it',
  },
  'pact-consumer': {
    type: 'string',
    env: 'USER_GROUP_MOCK_PACT_CONSUMER',
    help: 'consumer name in the recorded Pact file (default user-group-client)',
  },
  'pact-provider': {
    type: 'string',
    env: 'USER_GROUP_MOCK_PACT_PROVIDER',
    help: 'provider name in the recorded Pact file (default user-group-service)',
  },
  timeout: {
    type: 'string',
    env: 'USER_GROUP_MOCK_TIMEOUT',
    help: 'ms the target has to answer before 504 (default 10000)',
  },
  'target-ca': {
    type: 'string',
    env: 'USER_GROUP_MOCK_TARGET_CA',
    help: "PEM file of a private certificate authority that signed the target's certificate",
  },
  'body-limit': {
    type: 'string',
    env: 'USER_GROUP_MOCK_BODY_LIMIT',
    help: 'largest request or answer body in bytes (default 1048576)',
  },
  'log-level': {
    type: 'string',
    env: 'USER_GROUP_MOCK_LOG_LEVEL',
    help: 'silent | info | debug (default info); logs go to stderr',
  },
  'admin-key': {
    type: 'string',
    env: 'USER_GROUP_MOCK_ADMIN_KEY',
    help: 'key required on /__admin calls (required beyond loopback)',
  },
  help: { type: 'boolean', env: '', help: 'print this help' },
} as const;

export function proxyHelp(): string {
  const lines = Object.entries(proxyFlags).map(([name, flag]) => {
    const value = flag.type === 'string' ? ' VALUE' : '';
    const env = flag.env === '' ? '' : `  [${flag.env}]`;
    return `  --${name}${value}\n      ${flag.help}${env}`;
  });
  return `Usage: user-group-mock proxy --target URL [flags]\n\nForwards /api/user to the target, checks each request and answer against the contract, and journals the\nverdicts: GET /__admin/requests?invalid=true lists what broke it, each marked client or provider.\n\nFlags (environment variable in brackets):\n${lines.join('\n')}\n`;
}

export type ProxyArgs = ValidatingProxyOptions & { readonly help: boolean };

/** argv and env to proxy options; throws an Error whose message names the bad flag and the fix. */
export function parseProxyArgs(argv: readonly string[], env: Env): ProxyArgs {
  const options = Object.fromEntries(
    Object.entries(proxyFlags).map(([name, flag]) => [name, { type: flag.type }]),
  ) as Record<string, { type: 'string' | 'boolean' }>;
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as Record<
      string,
      string | boolean | undefined
    >;
  } catch (error) {
    const message = unknownFlag(argv, options) ?? (error as Error).message;
    throw new Error(`${product}: ${message}. Run "user-group-mock proxy --help" for the flags.`);
  }
  const get = (name: keyof typeof proxyFlags): string | undefined => {
    const value = values[name];
    if (typeof value === 'string') return value;
    const fromEnv = proxyFlags[name].env === '' ? undefined : env[proxyFlags[name].env];
    return fromEnv === '' ? undefined : fromEnv;
  };
  const flagOn = (name: keyof typeof proxyFlags): boolean =>
    values[name] === true || ['1', 'true'].includes(get(name) ?? '');
  const help = flagOn('help');
  const target = get('target');
  if (target === undefined && !help)
    throw new Error(
      `${product}: proxy needs --target URL, the base URL of the service to check (e.g. --target https://staging.example.com)`,
    );
  if (flagOn('strict') && flagOn('lenient'))
    throw new Error(`${product}: --strict and --lenient exclude each other; choose one`);
  const logLevel = get('log-level') ?? 'info';
  if (!['silent', 'info', 'debug'].includes(logLevel))
    throw new Error(`${product}: --log-level must be silent, info or debug, not "${logLevel}"`);
  const optional = (name: keyof typeof proxyFlags, key: keyof ValidatingProxyOptions) => {
    const value = get(name);
    return value === undefined ? {} : { [key]: value };
  };
  return {
    help,
    target: target ?? '',
    host: get('host') ?? '127.0.0.1',
    port: integer('port', get('port') ?? '4010', 0, 65535),
    mode: flagOn('lenient') ? 'lenient' : 'strict',
    blockInvalid: flagOn('block-invalid'),
    timeout: integer('timeout', get('timeout') ?? '10000', 1, 3_600_000),
    bodyLimit: integer('body-limit', get('body-limit') ?? '1048576', 1, 1024 ** 3),
    logLevel: logLevel as 'silent' | 'info' | 'debug',
    ...optional('record', 'record'),
    ...optional('pact-consumer', 'pactConsumer'),
    ...optional('pact-provider', 'pactProvider'),
    ...optional('target-ca', 'targetCa'),
    ...optional('admin-key', 'adminKey'),
  };
}

/** `user-group-mock proxy`: runs until SIGINT or SIGTERM, then writes the recording. Returns the exit code. */
export async function runProxy(argv: readonly string[], env: Env): Promise<number> {
  let args: ProxyArgs;
  try {
    args = parseProxyArgs(argv, env);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(proxyHelp());
    return 0;
  }
  const stopping = stopSignal();
  let proxy: ValidatingProxy;
  try {
    proxy = await createValidatingProxy(args);
  } catch (error) {
    stopping.dispose();
    process.stderr.write(`${(error as Error).message}\n`);
    return error instanceof ListenError || /--target/.test((error as Error).message) ? 2 : 1;
  }
  if (stopping.received === undefined) {
    process.stdout.write(
      [
        `${product} proxy listening on ${proxy.url}, forwarding to ${proxy.target}`,
        `answers: ${args.mode}${args.blockInvalid ? '; invalid requests are answered here, not forwarded' : ''}`,
        `verdicts: curl -sS '${proxy.url}/__admin/requests?invalid=true'`,
        ...(args.record === undefined
          ? []
          : [`recording to ${args.record} and ${pactPathOf(args.record)} as it goes`]),
        '',
      ].join('\n'),
    );
    await stopping.signal;
  }
  process.stderr.write(`${product}: ${stopping.received} received; finishing in-flight requests\n`);
  try {
    await proxy.close();
    return 0;
  } catch (error) {
    process.stderr.write(`${product}: could not shut down cleanly: ${(error as Error).message}\n`);
    return 1;
  } finally {
    stopping.dispose();
  }
}
