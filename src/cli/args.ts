import type { Environment } from '../domain/model.js';
import { product } from '../errors.js';
import type { MockServerOptions } from '../mockServer.js';
import type { ApiKey } from '../runtime/keyRing.js';
import { environmentMeant, ranges } from '../runtime/options.js';
import { parseRateLimit } from '../runtime/rateLimiter.js';
import { defaultJournalLimit } from '../store/journal.js';
import {
  isPostgresUrl,
  postgresUrlForm,
  postgresUrlProblem,
  withoutPassword,
} from '../store/postgres/postgresUrl.js';
import { type FlagSpec, flagHelpLines, integer, logLevelOf, readFlags, sharedFlags } from './flags.js';

/** Each flag of `serve`, its environment variable, and its help line: the one table --help is printed from. */
export const serveFlags = {
  host: sharedFlags.host,
  port: sharedFlags.port,
  db: {
    type: 'string',
    env: 'USER_GROUP_MOCK_DB',
    help: 'database file (default .user-group-mock/db.json), or postgres://user@host:port/db to share one PostgreSQL database between replicas (env DATABASE_URL too, when it is a postgres:// URL)',
  },
  'in-memory': {
    type: 'boolean',
    env: 'USER_GROUP_MOCK_IN_MEMORY',
    help: 'keep everything in memory; nothing is written',
  },
  'api-key': {
    type: 'string',
    multiple: true,
    value: 'KEY[:ENV]',
    env: 'USER_GROUP_MOCK_API_KEYS',
    help: 'KEY[:Customer|:Testing], repeatable (env: comma-separated); default dev-customer-key:Customer and dev-testing-key:Testing',
  },
  fixtures: {
    type: 'string',
    env: 'USER_GROUP_MOCK_FIXTURES',
    help: 'JSON file { "groups": [...] } seeded at start',
  },
  seed: { type: 'string', env: 'USER_GROUP_MOCK_SEED', help: 'integer; makes tokens and ids deterministic' },
  'log-level': sharedFlags['log-level'],
  'body-limit': {
    type: 'string',
    env: 'USER_GROUP_MOCK_BODY_LIMIT',
    help: 'largest body in bytes (default 1048576)',
  },
  'headers-timeout': {
    type: 'string',
    env: 'USER_GROUP_MOCK_HEADERS_TIMEOUT',
    help: 'ms to receive the headers before 408 (default 10000)',
  },
  'request-timeout': {
    type: 'string',
    env: 'USER_GROUP_MOCK_REQUEST_TIMEOUT',
    help: 'ms to receive the whole request before 408 (default 30000)',
  },
  'rate-limit': {
    type: 'string',
    env: 'USER_GROUP_MOCK_RATE_LIMIT',
    help: 'N/min per API key, then 429 with Retry-After (default: no limit; the real service allows 180/min)',
  },
  'journal-limit': {
    type: 'string',
    env: 'USER_GROUP_MOCK_JOURNAL_LIMIT',
    help: `entries each tenant's journal keeps (default ${defaultJournalLimit}); older ones are dropped and counted in X-Journal-Dropped`,
  },
  'admin-key': sharedFlags['admin-key'],
  help: sharedFlags.help,
} as const satisfies Readonly<Record<string, FlagSpec>>;

export const defaultDbPath = '.user-group-mock/db.json';

export function serveHelp(): string {
  return `Usage: user-group-mock serve [flags]\n\nRuns the stateful User Group Service mock.\n\nFlags (environment variable in brackets):\n${flagHelpLines(serveFlags)}\n`;
}

export type ServeArgs = MockServerOptions & { readonly help: boolean };

/** argv and env to server options; throws an Error whose message names the bad flag and the fix. */
export function parseServeArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServeArgs {
  const { values, get, on: flagOn } = readFlags('serve', serveFlags, argv, env);
  const apiKeyValues = (values['api-key'] as string[] | undefined) ?? get('api-key')?.split(',');
  const databaseUrl = env.DATABASE_URL;
  const dbPath =
    get('db') ??
    (databaseUrl !== undefined && isPostgresUrl(databaseUrl) && !flagOn('in-memory')
      ? databaseUrl
      : undefined);
  if (flagOn('in-memory') && dbPath !== undefined)
    throw new Error(`${product}: --db and --in-memory exclude each other; choose one`);
  if (dbPath !== undefined) {
    const source =
      typeof values.db === 'string'
        ? ''
        : get('db') !== undefined
          ? ' (USER_GROUP_MOCK_DB)'
          : ' (DATABASE_URL)';
    checkPostgresUrl(dbPath, source);
  }
  const rateLimit = get('rate-limit');
  const seed = get('seed');
  const logLevel = logLevelOf(get('log-level'));
  const adminKey = get('admin-key');
  const fixtures = get('fixtures');
  return {
    help: flagOn('help'),
    host: get('host') ?? '127.0.0.1',
    port: integer('port', get('port') ?? '4010', ranges.port),
    ...(flagOn('in-memory') ? {} : { db: dbPath ?? defaultDbPath }),
    ...(apiKeyValues === undefined ? {} : { apiKeys: parseApiKeys(apiKeyValues) }),
    ...(fixtures === undefined ? {} : { fixtures }),
    ...(seed === undefined ? {} : { seed: integer('seed', seed, ranges.seed) }),
    logLevel,
    bodyLimit: integer('body-limit', get('body-limit') ?? '1048576', ranges.bodyLimit),
    headersTimeout: integer('headers-timeout', get('headers-timeout') ?? '10000', ranges.headersTimeout),
    requestTimeout: integer('request-timeout', get('request-timeout') ?? '30000', ranges.requestTimeout),
    ...(rateLimit === undefined ? {} : { rateLimit: parseRateLimit(rateLimit) }),
    journalLimit: integer(
      'journal-limit',
      get('journal-limit') ?? String(defaultJournalLimit),
      ranges.journalLimit,
    ),
    ...(adminKey === undefined ? {} : { adminKey }),
  };
}

/**
 * A `--db` value that starts with `postgres:` or `postgresql:` is a PostgreSQL URL, never a file path: one that is not
 * a valid URL with a host is refused, its password masked in the message.
 */
function checkPostgresUrl(db: string, source: string): void {
  if (!isPostgresUrl(db)) return;
  const problem = postgresUrlProblem(db);
  if (problem !== undefined)
    throw new Error(
      `${product}: --db${source} "${withoutPassword(db)}" ${problem}; a PostgreSQL database is given as ${postgresUrlForm} (a value starting with postgres: is never a file path)`,
    );
}

/** Every `--api-key`, each key once: the key decides the environment, so one key cannot hold two. */
function parseApiKeys(texts: readonly string[]): ApiKey[] {
  const keys = texts.map(parseApiKey);
  keys.forEach(({ key }, index) => {
    const first = keys.findIndex((k) => k.key === key);
    if (first !== index)
      throw new Error(
        `${product}: --api-key "${texts[index]}": the key "${key}" is already given ("${texts[first]}"); a key belongs to one environment, the one it decides: give each --api-key its own key`,
      );
  });
  return keys;
}

/** `KEY`, `KEY:Customer` or `KEY:Testing` (a bare key is Customer). */
export function parseApiKey(text: string): ApiKey {
  const match = /^(.*?)(?::(Customer|Testing))?$/.exec(text.trim());
  const key = match?.[1] ?? '';
  if (key === '' || /\s/.test(key)) {
    throw new Error(
      `${product}: --api-key "${text}" is empty or has spaces; give KEY[:Customer|:Testing], e.g. --api-key my-key:Testing`,
    );
  }
  if (key.includes(':')) {
    // `k1:testing`, `k2:Test`, `k3:Prod`: an environment misspelt, which would otherwise become part of the key.
    const stem = key.slice(0, key.lastIndexOf(':'));
    const meant = environmentMeant(key.slice(key.lastIndexOf(':') + 1));
    throw new Error(
      `${product}: --api-key "${text}": the environment after ":" is Customer (production groups) or Testing (test groups), spelt exactly so, and a key has no ":"${meant === undefined ? '' : `; did you mean --api-key ${stem}:${meant}?`}`,
    );
  }
  return { key, environment: (match?.[2] ?? 'Customer') as Environment };
}
