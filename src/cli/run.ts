import { packageVersion } from '../admin/controls.js';
import { product } from '../errors.js';
import { ListenError } from '../http/listen.js';
import { createMockServer, type MockServer } from '../mockServer.js';
import { DatabaseUnreachableError, isPostgresUrl } from '../store/postgres/postgresStore.js';
import { SchemaTooNewError } from '../store/postgres/schema.js';
import { parseServeArgs, serveHelp } from './args.js';
import { nearest } from './suggest.js';

type Env = Readonly<Record<string, string | undefined>>;

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
    run: async (argv, env) => (await import('./verify.js')).runVerify(argv, env),
  },
  proxy: {
    summary: 'check a real service and client against the contract, between them',
    run: async (argv, env) => (await import('./proxy.js')).runProxy(argv, env),
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

async function serve(argv: readonly string[], env: Env): Promise<number> {
  let args: ReturnType<typeof parseServeArgs>;
  try {
    args = parseServeArgs(argv, env);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(serveHelp());
    return 0;
  }
  // Signals are handled before anything is opened: a stop asked for during start-up waits for the start to
  // finish and then shuts down cleanly, and the listening line, once printed, means "ready and stoppable".
  const stopping = stopSignal();
  let server: MockServer;
  try {
    server = await createMockServer(args);
  } catch (error) {
    stopping.dispose();
    process.stderr.write(`${(error as Error).message}\n`);
    return exitCodeOf(error);
  }
  if (stopping.received === undefined) {
    process.stdout.write(readyLines(server, args.db));
    await stopping.signal;
  }
  process.stderr.write(
    `${product}: ${stopping.received} received; finishing in-flight requests and flushing the store\n`,
  );
  try {
    await server.close();
    return 0;
  } catch (error) {
    process.stderr.write(`${product}: could not shut down cleanly: ${(error as Error).message}\n`);
    return 1;
  } finally {
    stopping.dispose();
  }
}

/**
 * The exit code of a failed start: 2 for a port in use, 3 for PostgreSQL out of reach, 4 for a database whose schema
 * is newer than this version knows, 1 for anything else (a locked or damaged database file, bad fixtures).
 */
export const exitCodes = { failed: 1, listen: 2, databaseUnreachable: 3, schemaTooNew: 4 } as const;

function exitCodeOf(error: unknown): number {
  if (error instanceof ListenError) return exitCodes.listen;
  if (error instanceof DatabaseUnreachableError) return exitCodes.databaseUnreachable;
  if (error instanceof SchemaTooNewError) return exitCodes.schemaTooNew;
  return exitCodes.failed;
}

/**
 * SIGINT and SIGTERM, from now on: `signal` resolves with the first. The handlers stay until `dispose`, so that a
 * second signal during the shutdown does not kill the process half way (the shutdown is bounded).
 */
export function stopSignal(): {
  readonly signal: Promise<string>;
  readonly received: string | undefined;
  dispose(): void;
} {
  let received: string | undefined;
  let resolve: (signal: string) => void = () => undefined;
  const signal = new Promise<string>((r) => {
    resolve = r;
  });
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
    const handler = (): void => {
      received ??= name;
      resolve(received);
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  return {
    signal,
    get received() {
      return received;
    },
    dispose: () => {
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}

function readyLines(server: MockServer, db: string | undefined): string {
  const customer = server.apiKeys.find((k) => k.environment === 'Customer') ?? server.apiKeys[0];
  return [
    `${product} listening on ${server.url}`,
    `store: ${db === undefined ? 'in memory (nothing is written)' : isPostgresUrl(db) ? postgresName(db) : db}`,
    'API keys:',
    ...server.apiKeys.map((k) => `  ${k.key} (${k.environment})`),
    'Try:',
    `  curl -sS -X GET ${server.url}/api/user -H 'Authorization: Token ${customer?.key ?? '<API_KEY>'}' -H 'Content-Type: application/json' -d '{"name":"Customer A","user_group_id":"customer-a"}'`,
    '',
  ].join('\n');
}

/** A PostgreSQL URL as it may be printed: without its password. */
function postgresName(url: string): string {
  const parsed = new URL(url);
  return `PostgreSQL at ${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname} (shared by every replica on it)`;
}
