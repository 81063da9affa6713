import { reach } from '../contract/reach.js';
import { product } from '../errors.js';
import { ListenError } from '../http/listen.js';
import { createValidatingProxy, type ValidatingProxy } from '../proxy/createValidatingProxy.js';
import { ProxyOptionError, proxyOptions, type ValidatingProxyOptions } from '../proxy/proxyOptions.js';
import { pactPathOf } from '../proxy/recording.js';
import { RecordingLostError } from '../proxy/recordingFile.js';
import { commandHelp, type Env, flagsOf, readFlags } from './flags.js';
import type { ServingCommand } from './runUntilStopped.js';

export const proxyFlags = flagsOf(proxyOptions);

export const proxyHelp = (): string =>
  commandHelp(
    'proxy --target URL [flags]',
    'Forwards /api/user to the target, checks each request and answer against the contract, and journals the\nverdicts: GET /__admin/requests?invalid=true lists what broke it, each marked client or provider.',
    proxyOptions,
  );

export type ProxyArgs = ValidatingProxyOptions & { readonly help: boolean };

export function parseProxyArgs(argv: readonly string[], env: Env): ProxyArgs {
  const { options } = readFlags('proxy', proxyOptions, argv, env);
  const { strict, lenient, ...rest } = options;
  if (rest.target === undefined && rest.help !== true)
    throw new Error(
      `${product}: proxy needs --target URL, the base URL of the service to check (e.g. --target https://staging.example.com)`,
    );
  if (strict === true && lenient === true)
    throw new Error(`${product}: --strict and --lenient exclude each other; choose one`);
  return {
    ...(rest as ProxyArgs),
    target: (rest.target as string | undefined) ?? '',
    mode: lenient === true ? 'lenient' : 'strict',
  };
}

/**
 * `user-group-mock proxy`: runs until SIGINT or SIGTERM, then writes the recording. A setting that cannot
 * work (a wrong target, a recording folder missing or not writable, a port in use) exits 2 before it listens.
 */
export const proxyCommand: ServingCommand<ProxyArgs, ValidatingProxy> = {
  parse: parseProxyArgs,
  help: proxyHelp,
  start: async ({ help: _help, ...args }) => {
    const warn = (message: string) => process.stderr.write(`${message}\n`);
    const proxy = await createValidatingProxy({ ...args, onWarning: warn });
    // A target not up yet is a way to start (the proxy answers 502 until it is), but most often a wrong --target.
    const reached = await reach(proxy.target, 1_000);
    if (!reached.ok)
      warn(
        `${product}: proxy: warning: the target ${proxy.target} cannot be reached now (${reached.error}); each request answers 502 UPSTREAM_UNREACHABLE until it can: start the service, or check --target`,
      );
    return proxy;
  },
  exitCodeOf: (error) => (error instanceof ListenError || error instanceof ProxyOptionError ? 2 : 1),
  shutdownFailure: (error) => (error instanceof RecordingLostError ? error.message : undefined),
  readyLines,
  stopping: 'finishing in-flight requests',
};

/** What the proxy prints once it listens: where, how it answers, and the curl that reads its verdicts. */
export function readyLines(proxy: Pick<ValidatingProxy, 'url' | 'target'>, args: ProxyArgs): string {
  return [
    `${product} proxy listening on ${proxy.url}, forwarding to ${proxy.target}`,
    `answers: ${args.mode}${args.blockInvalid ? '; invalid requests are answered here, not forwarded' : ''}`,
    `verdicts: curl -sS '${proxy.url}/__admin/requests?invalid=true'${args.adminKey === undefined || args.adminKey === '' ? '' : ` -H 'X-Admin-Key: <the --admin-key value>'`}`,
    ...(args.record === undefined
      ? []
      : [`recording to ${args.record} and ${pactPathOf(args.record)} as it goes`]),
    '',
  ].join('\n');
}
