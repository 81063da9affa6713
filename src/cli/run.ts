import { product } from '../errors.js';
import { createMockServer } from '../http/server.js';
import { parseServeArgs, serveHelp } from './args.js';

const usage = `Usage: user-group-mock <command> [flags]

Commands:
  serve    run the stateful mock (default); see "user-group-mock serve --help"
  verify   verify a provider against the published Pact contract; see "user-group-mock verify --help"
`;

/** The command line: the only place that reads argv, env and signals. Returns the exit code. */
export async function run(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const [command = 'serve', ...rest] = argv[0]?.startsWith('-') ? ['serve', ...argv] : argv;
  if (command === 'help' || command === '--help') {
    process.stdout.write(usage);
    return 0;
  }
  if (command === 'verify') {
    const { runVerify } = await import('./verify.js');
    return runVerify(rest, env);
  }
  if (command !== 'serve') {
    process.stderr.write(`${product}: unknown command "${command}".\n${usage}`);
    return 2;
  }
  return serve(rest, env);
}

async function serve(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
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
  let server: Awaited<ReturnType<typeof createMockServer>>;
  try {
    server = await createMockServer(args);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
  const customer = server.apiKeys.find((k) => k.environment === 'Customer') ?? server.apiKeys[0];
  const lines = [
    `${product} listening on ${server.url}`,
    `store: ${args.db === undefined ? 'in memory (nothing is written)' : args.db}`,
    'API keys:',
    ...server.apiKeys.map((k) => `  ${k.key} (${k.environment})`),
    'Try:',
    `  curl -sS -X GET ${server.url}/api/user -H 'Authorization: Token ${customer?.key ?? '<API_KEY>'}' -H 'Content-Type: application/json' -d '{"name":"Customer A","user_group_id":"customer-a"}'`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(
        `${product}: ${signal} received; finishing in-flight requests and flushing the store\n`,
      );
      server.close().then(
        () => resolve(0),
        (error: Error) => {
          process.stderr.write(`${product}: could not shut down cleanly: ${error.message}\n`);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
