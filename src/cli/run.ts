import { packageVersion } from '../admin/controls.js';
import { product } from '../errors.js';
import { ListenError } from '../http/listen.js';
import { createMockServer, type MockServer } from '../mockServer.js';
import {
  DatabaseRefusedError,
  DatabaseUnreachableError,
  isPostgresUrl,
  postgresWhere,
  SchemaNotOursError,
  SchemaTooNewError,
} from '../store/openStore.js';
import { pagePaths } from '../ui/pages.js';
import { nearest } from '../validate/nearest.js';
import { parseServeArgs, type ServeArgs, serveHelp } from './args.js';
import { colourless, colourWanted } from './colourless.js';
import type { Env } from './flags.js';
import { runUntilStopped, type ServingCommand } from './runUntilStopped.js';

interface Command {
  /** One line for the usage. */
  readonly summary: string;
  run(argv: readonly string[], env: Env): Promise<number>;
}

/** Every command: the one table the usage is printed from and a command line is dispatched through. */
export const commands: Readonly<Record<string, Command>> = {
  serve: {
    summary: 'run the stateful mock (the default)',
    run: (argv, env) => serve(argv, env),
  },
  verify: {
    summary: 'verify a provider against the published Pact contract',
    // Pact's verifier writes its report in colour whatever it is told: stripped in a pipe or with NO_COLOR.
    run: async (argv, env) =>
      (await import('./verify.js')).runVerify(
        argv,
        env,
        colourWanted(env, process.stdout.isTTY)
          ? {}
          : { colourless: () => colourless(['verify', ...argv], env) },
      ),
  },
  conform: {
    summary: 'test that a provider behaves as described, over random call sequences',
    run: async (argv, env) => (await import('./conform.js')).runConform(argv, env),
  },
  proxy: {
    summary: 'check a real service and client against the contract, between them',
    run: async (argv, env) => runUntilStopped((await import('./proxy.js')).proxyCommand, argv, env),
  },
};

export function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(
    ([name, command]) => `  ${name.padEnd(width)}  ${command.summary}; see "user-group-mock ${name} --help"`,
  );
  return `Usage: user-group-mock [command] [flags]\n\nCommands:\n${lines.join('\n')}\n\nWithout a command it runs serve. --version prints the version.\n`;
}

/** The command line: the only place that reads argv, env and signals. Returns the exit code. */
export async function run(argv: readonly string[], env: Env): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v' || first === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (first === undefined || (first.startsWith('-') && !['--help', '-h'].includes(first)))
    return serve(argv, env);
  if (first === 'help' || first === '--help' || first === '-h') {
    const topic = first === 'help' ? rest[0] : undefined;
    if (topic !== undefined && Object.hasOwn(commands, topic))
      return commands[topic]?.run(['--help'], env) ?? 2;
    process.stdout.write(usage());
    return 0;
  }
  const command = Object.hasOwn(commands, first) ? commands[first] : undefined;
  if (command === undefined) {
    const near = nearest(first, Object.keys(commands));
    process.stderr.write(
      `${product}: unknown command "${first}"${near === undefined ? '' : ` (did you mean ${near}?)`}.\n${usage()}`,
    );
    return 2;
  }
  return command.run(rest, env);
}

/** `user-group-mock serve`: the mock until SIGINT or SIGTERM, then its store flushed. */
const serveCommand: ServingCommand<ServeArgs, MockServer> = {
  parse: parseServeArgs,
  help: serveHelp,
  start: ({ help: _help, ...options }) => createMockServer(options),
  exitCodeOf,
  readyLines: (server, args) => readyLines(server, args.db),
  stopping: 'finishing in-flight requests and flushing the store',
};

const serve = (argv: readonly string[], env: Env): Promise<number> =>
  runUntilStopped(serveCommand, argv, env);

/** The exit code of a failed start: 1 for any other error (a locked or damaged database, bad fixtures). */
function exitCodeOf(error: unknown): number {
  if (error instanceof ListenError) return 2;
  if (error instanceof DatabaseUnreachableError || error instanceof DatabaseRefusedError) return 3;
  return error instanceof SchemaTooNewError || error instanceof SchemaNotOursError ? 4 : 1;
}

const [inspector, reference] = pagePaths('mock');

/**
 * What start-up prints: the address it listens on first (exactly `user-group-mock listening on http://HOST:PORT`),
 * then addresses to open, which name `localhost` when the mock listens on every interface (`0.0.0.0`, `::`, as in
 * the container): a browser or curl cannot open `http://0.0.0.0:4010` everywhere.
 */
export function readyLines(
  server: Pick<MockServer, 'url' | 'host' | 'port' | 'apiKeys'>,
  db: string | undefined,
): string {
  const customer = server.apiKeys.find((k) => k.environment === 'Customer') ?? server.apiKeys[0];
  const open =
    server.host === '0.0.0.0' || server.host === '::' ? `http://localhost:${server.port}` : server.url;
  return [
    `${product} listening on ${server.url}`,
    `store: ${db === undefined ? 'in memory (nothing is written)' : isPostgresUrl(db) ? postgresName(db) : db}`,
    'API keys:',
    ...server.apiKeys.map((k) => `  ${k.key} (${k.environment})`),
    `Inspector (in a browser): ${open}${inspector}`,
    `API reference: ${open}${reference}`,
    'Try:',
    `  curl -sS -X GET ${open}/api/user -H 'Authorization: Token ${customer?.key ?? '<API_KEY>'}' -H 'Content-Type: application/json' -d '{"name":"Customer A","user_group_id":"customer-a"}'`,
    '',
  ].join('\n');
}

/** A PostgreSQL URL as it may be printed: without its password. */
function postgresName(url: string): string {
  const { host, port } = postgresWhere(url);
  return `PostgreSQL at ${host}:${port}${new URL(url).pathname} (shared by every replica on it)`;
}
