import { type ConformOptions, conformOptions } from '../conform/conformOptions.js';
import { ConformOptionError, type ConformResult, conformProvider } from '../conform/conformProvider.js';
import { callText, keyVariable } from '../conform/report.js';
import { product } from '../errors.js';
import { commandHelp, commandLine, type Env, flagsOf, readFlags } from './flags.js';

export const conformFlags = flagsOf(conformOptions);

/** The exit code of each way `conform` ends, and its help line: the one table --help is printed from. */
export const conformExitCodes = {
  conforms: { code: 0, help: 'the service behaves as described in every sequence run' },
  diverges: { code: 1, help: 'it does not: the shortest sequence found is printed, with the rule it breaks' },
  'could-not-run': {
    code: 2,
    help: 'the run could not be made: a target unreachable, a key refused, a call answered 429 (rate limited) or 503 (unavailable), a flag missing or wrong, a report that cannot be written, a --path that replays nothing',
  },
} as const;

export const conformHelp = (): string =>
  commandHelp(
    'conform --target URL --api-key KEY[:Environment]... [flags]',
    `Tests that a User Group Service behaves as described, over random sequences of get-or-create, update and
rotation, each answer compared with the mock's own rules (a reference model). A divergence is shrunk to the
shortest sequence that shows it, printed as curl commands with the expected and the actual answer.
Every user_group_id it creates starts with --prefix; the service has no delete, so those groups stay: run it
against a staging service, not production.`,
    conformOptions,
    `\nExit codes:\n${Object.values(conformExitCodes)
      .map(({ code, help }) => `  ${code}  ${help}`)
      .join('\n')}\n`,
  );

/** `user-group-mock conform`: model-based testing of a provider. Returns the exit code. */
export async function runConform(argv: readonly string[], env: Env): Promise<number> {
  const options = commandLine(() => readFlags('conform', conformOptions, argv, env).options, conformHelp);
  if (typeof options === 'number') return options;
  const { help: _help, ...given } = options as ConformOptions & { help?: boolean };
  if (given.targets === undefined || given.apiKeys === undefined) {
    const missing = [
      given.targets === undefined ? '--target' : [],
      given.apiKeys === undefined ? '--api-key' : [],
    ].flat();
    return usage(
      `conform needs --target URL and --api-key KEY[:Environment] (${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} missing), e.g. --target https://staging.example.com --api-key "$KEY":Testing`,
    );
  }
  const out = (text: string): boolean => process.stdout.write(text);
  const tty = process.stderr.isTTY === true;
  let result: ConformResult;
  try {
    result = await conformProvider({
      ...given,
      onProgress: tty
        ? (done, runs) => process.stderr.write(`\rconform: sequence ${done}/${runs}`)
        : undefined,
    });
  } catch (error) {
    if (error instanceof ConformOptionError) return usage(error.message.replace(`${product}: `, ''));
    throw error;
  } finally {
    if (tty) process.stderr.write('\r\u001b[K');
  }
  out(
    `${product} conform: ${result.targets.join(', ')}; ids start with ${result.prefix} (the service has no delete: the groups made stay); seed ${result.seed}\n`,
  );
  if (result.environments.length > 0)
    out(`keys: ${result.environments.map((e, i) => `$${keyVariable(i)} (${e})`).join(', ')}\n`);
  if (result.outcome === 'could-not-run') {
    process.stderr.write(`${product}: conform: ${result.reason}. Nothing was tested.\n`);
    return conformExitCodes['could-not-run'].code;
  }
  const summary = `${result.runs} sequences, ${result.calls} calls, ${result.rules.length} rules`;
  if (result.outcome === 'conforms') {
    out(`${product}: conform: behaves as described; ${summary}, 0 divergences\n`);
    return conformExitCodes.conforms.code;
  }
  const calls = result.counterexample?.calls ?? [];
  out(
    `\nThe shortest sequence found that diverges (${calls.length} ${calls.length === 1 ? 'call' : 'calls'}):\n`,
  );
  out(`${calls.map(callText).join('\n')}\n\n`);
  const variables = result.environments.map((_, i) => keyVariable(i)).join(', ');
  out(
    `Replay it, with ${variables} set to the keys: npx user-group-mock conform ${withoutReplay(argv).join(' ')} --seed ${result.seed} --path '${result.counterexample?.path ?? ''}'\n`,
  );
  process.stderr.write(`${product}: conform: diverges; ${summary}\n`);
  return conformExitCodes.diverges.code;
}

/**
 * The command line for the replay line: without its --seed and --path (given anew) and its reports (a replay would
 * write over them), each key replaced by its variable (keys are never printed).
 */
const replayed = new Set(['--seed', '--path', '--report-junit', '--report-json']);

function withoutReplay(argv: readonly string[]): string[] {
  const kept: string[] = [];
  let key = 0;
  const hidden = (value: string): string => {
    const environment = /:(Customer|Testing)$/.exec(value)?.[0] ?? '';
    return `"$${keyVariable(key++)}"${environment}`;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (replayed.has(arg)) i++;
    else if (arg === '--api-key') kept.push(arg, hidden(argv[++i] ?? ''));
    else if (arg.startsWith('--api-key=')) kept.push('--api-key', hidden(arg.slice('--api-key='.length)));
    else if (![...replayed].some((flag) => arg.startsWith(`${flag}=`))) kept.push(arg);
  }
  return kept;
}

function usage(message: string): number {
  process.stderr.write(
    `${product}: ${message.replace(/\.$/, '')}. Run "user-group-mock conform --help" for the flags.\n`,
  );
  return conformExitCodes['could-not-run'].code;
}
