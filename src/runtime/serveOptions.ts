import type { Environment } from '../domain/model.js';
import { product } from '../errors.js';
import type { FileSystem } from '../store/fileSystem.js';
import { defaultJournalLimit, maxJournalLimit } from '../store/journal.js';
import { dbProblem, postgresUrlForm, withoutPassword } from '../store/openStore.js';
import type { ApiKey } from './keyRing.js';
import { type OptionsOf, type Settings, sharedOptions } from './options.js';
import { parseRateLimit, rateLimitProblem } from './rateLimiter.js';

/**
 * The options of `createMockServer`: those of `serveOptions` below, typed by their kind; their help is the table's
 * (and `--help`'s).
 */
export type MockServerOptions = OptionsOf<
  typeof serveOptions,
  {
    /** Each `{ key, environment }`; default `defaultApiKeys` (dev-customer-key and dev-testing-key). */
    readonly apiKeys: readonly ApiKey[];
    /**
     * A database file's path, or a PostgreSQL URL (postgres://user@host:5432/db) to share one database between
     * replicas; default: in memory.
     */
    readonly db: string;
    /** Requests per minute per API key (a number, e.g. 180); over it, 429. */
    readonly rateLimit: number;
    /** The store's file-system seam (tests inject disk faults here); default Node's `fs/promises`. */
    readonly files: FileSystem;
    /**
     * Receives the store's warnings about trouble it recovers from by itself (a failed compaction, retried later;
     * nothing is lost). Default: a process warning on stderr.
     */
    readonly onWarning: (message: string) => void;
  }
>;

const timeout = { kind: 'integer', min: 1, max: 3_600_000 } as const;

/** What is wrong with `db` given in process: not a non-empty string, or a value `dbProblem` refuses. */
function dbOptionProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '')
    return `must be a file path or a PostgreSQL URL (${postgresUrlForm}), not ${JSON.stringify(value)}`;
  const problem = dbProblem(value);
  return problem === undefined ? undefined : `"${withoutPassword(value)}" ${problem}`;
}

/** Every setting of `serve` and `createMockServer`: the one table their flags, help, defaults and checks come from. */
export const serveOptions = {
  host: sharedOptions.host,
  port: sharedOptions.port,
  db: {
    kind: 'custom',
    check: dbOptionProblem,
    fromText: ([text = '']) => text,
    value: 'PATH',
    help: 'database file, or postgres://user@host:port/db to share one PostgreSQL database between replicas (env DATABASE_URL too, when it is a postgres:// URL)',
    flagDefault: '.user-group-mock/db.json',
  },
  inMemory: {
    kind: 'boolean',
    help: 'keep everything in memory; nothing is written',
    flagOnly: 'the mock keeps everything in memory unless db is given: leave out db',
  },
  // Connections to PostgreSQL per replica (default 10).
  poolSize: { kind: 'integer', min: 1, max: 1000 },
  apiKeys: {
    kind: 'custom',
    check: apiKeysProblem,
    flag: 'api-key',
    value: 'KEY[:ENV]',
    multiple: true,
    env: 'USER_GROUP_MOCK_API_KEYS',
    help: 'KEY[:Customer|:Testing], repeatable (env: comma-separated); default dev-customer-key:Customer and dev-testing-key:Testing',
    fromText: parseApiKeys,
  },
  fixtures: { kind: 'string', nonEmpty: true, help: 'JSON file { "groups": [...] } seeded at start' },
  seed: {
    kind: 'integer',
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    help: 'integer; makes tokens and ids deterministic',
  },
  logLevel: sharedOptions.logLevel,
  bodyLimit: sharedOptions.bodyLimit,
  headersTimeout: { ...timeout, help: 'ms to receive the headers before 408', default: 10_000 },
  requestTimeout: { ...timeout, help: 'ms to receive the whole request before 408', default: 30_000 },
  rateLimit: {
    kind: 'custom',
    check: rateLimitProblem,
    help: 'N/min per API key, then 429 with Retry-After (default: no limit; the real service allows 180/min)',
    fromText: ([text = '']) => parseRateLimit(text),
  },
  journalLimit: {
    kind: 'integer',
    min: 1,
    max: maxJournalLimit,
    help: "entries each tenant's journal keeps; older ones are dropped and counted in X-Journal-Dropped",
    default: defaultJournalLimit,
  },
  adminKey: sharedOptions.adminKey,
  files: { kind: 'object' },
  // Compact the change log after this many records (default 20,000).
  compactAfter: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER },
  onWarning: sharedOptions.onWarning,
  help: sharedOptions.help,
} as const satisfies Settings;

/**
 * The environment a word after `KEY:` (or an `environment` given in another case) most likely means: `Customer`
 * holds production groups, `Testing` test groups (the spec's two labels). Undefined when the word says neither.
 */
export function environmentMeant(word: string): Environment | undefined {
  const said = word.trim().toLowerCase();
  if (/^(cust|prod|live)/.test(said)) return 'Customer';
  if (/^(t|stag|dev|sandbox|qa)/.test(said)) return 'Testing';
  return undefined;
}

/** The hint for an `--api-key` whose key before ":" is empty (`":Testing"`): most often a shell variable unset. */
export const unsetKeyHint = 'was the variable that holds it unset (--api-key "$KEY":Testing with no KEY)?';

/**
 * The hint for an `--api-key` that starts with the `Authorization` scheme (`Token my-key`): the flag takes the key
 * alone, the word a client puts before it in the header is not part of it. Empty for any other text.
 */
export function schemeHint(text: string): string {
  const scheme = /^(token|bearer)\s+(\S+)/i.exec(text.trim());
  return scheme === null
    ? ''
    : `give the key alone, without "${scheme[1]} " (the word a client puts before the key in Authorization): --api-key ${scheme[2]}`;
}

/** `apiKeys`: each entry `{ key, environment }`, the key non-empty without spaces or ":", the environment exact. */
export function apiKeysProblem(value: unknown): string | undefined {
  if (!Array.isArray(value))
    return `must be an array of { key, environment }, e.g. [{ key: 'my-key', environment: 'Testing' }]`;
  const seen = new Map<string, { index: number; environment: unknown }>();
  for (const [index, entry] of value.entries()) {
    const at = `apiKeys[${index}]`;
    if (typeof entry === 'string') {
      const [key = '', word = 'Customer'] = entry.split(':');
      const environment = environmentMeant(word) ?? 'Customer';
      return `${at} is the string "${entry}"; an entry is an object, e.g. { key: '${key}', environment: '${environment}' } (KEY:ENV is the command line's --api-key form)`;
    }
    if (entry === null || typeof entry !== 'object') return `${at} must be an object { key, environment }`;
    const { key, environment } = entry as { key?: unknown; environment?: unknown };
    if (typeof key !== 'string' || key.trim() === '' || /[\s:]/.test(key))
      return `${at}.key must be a non-empty string without spaces or ":" (see --api-key), not ${JSON.stringify(key)}`;
    if (environment !== 'Customer' && environment !== 'Testing') {
      const meant = typeof environment === 'string' ? environmentMeant(environment) : undefined;
      return `${at}.environment must be "Customer" (production groups) or "Testing" (test groups), spelt exactly so, not ${JSON.stringify(environment)}${meant === undefined ? '' : `; did you mean "${meant}"?`}`;
    }
    // The key decides the environment: one key in two entries would leave one of them unreachable.
    const earlier = seen.get(key);
    if (earlier !== undefined)
      return `${at}.key "${key}" is given twice (apiKeys[${earlier.index}] has it${earlier.environment === environment ? '' : `, for ${String(earlier.environment)}`}); a key belongs to one environment, the one it decides: give each entry its own key`;
    seen.set(key, { index, environment });
  }
  return undefined;
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
    const scheme = schemeHint(text);
    const why =
      key !== ''
        ? `has spaces${scheme === '' ? '' : `: ${scheme}`}`
        : text.trim() === ''
          ? 'is empty'
          : `has an empty key before ":": ${unsetKeyHint}`;
    throw new Error(
      `${product}: --api-key "${text}" ${why}; give KEY[:Customer|:Testing], e.g. --api-key my-key:Testing`,
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
