import { product } from '../errors.js';
import { ListenError } from '../http/listen.js';
import {
  createValidatingProxy,
  type ValidatingProxy,
  type ValidatingProxyOptions,
} from '../proxy/createValidatingProxy.js';
import { ProxyOptionError } from '../proxy/proxyOptions.js';
import { pactPathOf } from '../proxy/recording.js';
import { RecordingLostError } from '../proxy/recordingFile.js';
import { ranges } from '../runtime/options.js';
import {
  type Env,
  type FlagSpec,
  flagHelpLines,
  integer,
  logLevelOf,
  readFlags,
  sharedFlags,
} from './flags.js';
import { runUntilStopped } from './runUntilStopped.js';

/** Each flag of `proxy`, its environment variable, and its help line: the one table --help is printed from. */
export const proxyFlags = {
  target: {
    type: 'string',
    env: 'USER_GROUP_MOCK_TARGET',
    help: 'base URL of the service to check (required), e.g. https://staging.example.com',
  },
  host: sharedFlags.host,
  port: sharedFlags.port,
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
  'log-level': sharedFlags['log-level'],
  'admin-key': sharedFlags['admin-key'],
  help: sharedFlags.help,
} as const satisfies Readonly<Record<string, FlagSpec>>;

export function proxyHelp(): string {
  return `Usage: user-group-mock proxy --target URL [flags]\n\nForwards /api/user to the target, checks each request and answer against the contract, and journals the\nverdicts: GET /__admin/requests?invalid=true lists what broke it, each marked client or provider.\n\nFlags (environment variable in brackets):\n${flagHelpLines(proxyFlags)}\n`;
}

export type ProxyArgs = ValidatingProxyOptions & { readonly help: boolean };

/** argv and env to proxy options; throws an Error whose message names the bad flag and the fix. */
export function parseProxyArgs(argv: readonly string[], env: Env): ProxyArgs {
  const { get, on: flagOn } = readFlags('proxy', proxyFlags, argv, env);
  const help = flagOn('help');
  const target = get('target');
  if (target === undefined && !help)
    throw new Error(
      `${product}: proxy needs --target URL, the base URL of the service to check (e.g. --target https://staging.example.com)`,
    );
  if (flagOn('strict') && flagOn('lenient'))
    throw new Error(`${product}: --strict and --lenient exclude each other; choose one`);
  const logLevel = logLevelOf(get('log-level'));
  const optional = (name: keyof typeof proxyFlags, key: keyof ValidatingProxyOptions) => {
    const value = get(name);
    return value === undefined ? {} : { [key]: value };
  };
  return {
    help,
    target: target ?? '',
    host: get('host') ?? '127.0.0.1',
    port: integer('port', get('port') ?? '4010', ranges.port),
    mode: flagOn('lenient') ? 'lenient' : 'strict',
    blockInvalid: flagOn('block-invalid'),
    timeout: integer('timeout', get('timeout') ?? '10000', ranges.timeout),
    bodyLimit: integer('body-limit', get('body-limit') ?? '1048576', ranges.bodyLimit),
    logLevel,
    ...optional('record', 'record'),
    ...optional('pact-consumer', 'pactConsumer'),
    ...optional('pact-provider', 'pactProvider'),
    ...optional('target-ca', 'targetCa'),
    ...optional('admin-key', 'adminKey'),
  };
}

/**
 * `user-group-mock proxy`: runs until SIGINT or SIGTERM, then writes the recording. Returns the exit code: 2 for a
 * setting that cannot work (a wrong target, a recording folder that is missing or not writable, a port in use),
 * checked before it listens; 0 after a clean stop; 1 when the recording could not be written at the stop (the
 * message says what is lost and where).
 */
export function runProxy(argv: readonly string[], env: Env): Promise<number> {
  return runUntilStopped<ProxyArgs, ValidatingProxy>(
    {
      parse: parseProxyArgs,
      help: proxyHelp,
      start: ({ help: _help, ...args }) =>
        createValidatingProxy({ ...args, onWarning: (message) => process.stderr.write(`${message}\n`) }),
      exitCodeOf: (error) => (error instanceof ListenError || error instanceof ProxyOptionError ? 2 : 1),
      shutdownFailure: (error) => (error instanceof RecordingLostError ? error.message : undefined),
      readyLines,
      stopping: 'finishing in-flight requests',
    },
    argv,
    env,
  );
}

function readyLines(proxy: ValidatingProxy, args: ProxyArgs): string {
  return [
    `${product} proxy listening on ${proxy.url}, forwarding to ${proxy.target}`,
    `answers: ${args.mode}${args.blockInvalid ? '; invalid requests are answered here, not forwarded' : ''}`,
    `verdicts: curl -sS '${proxy.url}/__admin/requests?invalid=true'`,
    ...(args.record === undefined
      ? []
      : [`recording to ${args.record} and ${pactPathOf(args.record)} as it goes`]),
    '',
  ].join('\n');
}
