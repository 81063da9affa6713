import type { Environment } from '../domain/model.js';
import { product } from '../errors.js';
import { maxJournalLimit } from '../store/journal.js';
import { nearest } from '../validate/nearest.js';

/**
 * The checks of the settings the mock and the proxy start with, shared by the in-process options
 * (`createMockServer`, `createValidatingProxy`) and the command line's flags: one range per number, one message
 * naming the option and its flag. The command line reads text into values; the options arrive as values.
 */

/**
 * How a message names a setting, for both ways of giving it: `the timeout option (--timeout)`. The same messages
 * reach a caller of `createMockServer` or `createValidatingProxy` and a user of the command line.
 */
export const setting = (option: string, flag: string = option): string => `the ${option} option (--${flag})`;

/** What an option takes: a whole number in a range, a string, one of some words, a boolean or a function. */
export type OptionRule =
  | { readonly kind: 'integer'; readonly min: number; readonly max: number; readonly flag?: string }
  | { readonly kind: 'string'; readonly flag?: string; readonly nonEmpty?: boolean }
  | { readonly kind: 'oneOf'; readonly values: readonly string[]; readonly flag?: string }
  | { readonly kind: 'boolean'; readonly flag?: string }
  | { readonly kind: 'function' }
  | { readonly kind: 'object' }
  | {
      readonly kind: 'custom';
      readonly check: (value: unknown) => string | undefined;
      readonly flag?: string;
    };

/** The ranges of the numbers both commands and both in-process entry points take. */
export const ranges = {
  port: { kind: 'integer', min: 0, max: 65535, flag: 'port' },
  bodyLimit: { kind: 'integer', min: 1, max: 1024 ** 3, flag: 'body-limit' },
  headersTimeout: { kind: 'integer', min: 1, max: 3_600_000, flag: 'headers-timeout' },
  requestTimeout: { kind: 'integer', min: 1, max: 3_600_000, flag: 'request-timeout' },
  timeout: { kind: 'integer', min: 1, max: 3_600_000, flag: 'timeout' },
  seed: { kind: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER, flag: 'seed' },
  journalLimit: { kind: 'integer', min: 1, max: maxJournalLimit, flag: 'journal-limit' },
} as const satisfies Readonly<Record<string, OptionRule>>;

export const logLevelRule = {
  kind: 'oneOf',
  values: ['silent', 'info', 'debug'],
  flag: 'log-level',
} as const satisfies OptionRule;

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

/** A number of requests per minute (`rateLimit: 180`); the command line's `--rate-limit 180/min` says the same. */
export function rateLimitProblem(value: unknown): string | undefined {
  if (Number.isSafeInteger(value) && (value as number) >= 1) return undefined;
  const perMinute = typeof value === 'string' ? /^\s*(\d+)\s*\/\s*min\s*$/.exec(value)?.[1] : undefined;
  return `must be a whole number of requests per minute per API key, not ${JSON.stringify(value)}${perMinute === undefined ? ', e.g. rateLimit: 180' : `; give rateLimit: ${perMinute} (N/min is the command line's --rate-limit form)`}`;
}

/** Why `value` breaks `rule`, or undefined. */
function problemOf(rule: OptionRule, value: unknown): string | undefined {
  const was = `not ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  switch (rule.kind) {
    case 'integer':
      return Number.isSafeInteger(value) && (value as number) >= rule.min && (value as number) <= rule.max
        ? undefined
        : `must be an integer from ${rule.min} to ${rule.max}, ${was}`;
    case 'string':
      if (typeof value !== 'string') return `must be a string, ${was}`;
      return rule.nonEmpty === true && value.trim() === '' ? 'must not be empty' : undefined;
    case 'oneOf': {
      if (typeof value === 'string' && rule.values.includes(value)) return undefined;
      const meant = typeof value === 'string' ? nearest(value, rule.values) : undefined;
      return `must be ${rule.values.join(', ')}, ${was}${meant === undefined ? '' : `; did you mean "${meant}"?`}`;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `must be true or false, ${was}`;
    case 'function':
      return typeof value === 'function' ? undefined : `must be a function, ${was}`;
    case 'object':
      return value !== null && typeof value === 'object' ? undefined : `must be an object, ${was}`;
    case 'custom':
      return rule.check(value);
  }
}

/**
 * Checks the options an in-process entry point was given against its table, before anything listens: an unknown
 * option (with the one it most likely meant), or a value its option cannot take. Throws a TypeError naming the
 * option, its flag and the fix. Options given as undefined count as not given.
 */
export function checkOptions(
  entry: string,
  options: unknown,
  rules: Readonly<Record<string, OptionRule>>,
  instead: Readonly<Record<string, string>> = {},
): void {
  const refuse = (message: string): never => {
    throw new TypeError(`${product}: ${entry}: ${message}`);
  };
  if (options === undefined) return;
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    refuse(`the options are an object, e.g. ${entry}({ port: 0 }), not ${JSON.stringify(options)}`);
  const known = Object.keys(rules);
  for (const [name, value] of Object.entries(options as object)) {
    const rule = rules[name];
    if (rule === undefined) {
      const meant = nearest(name, known);
      refuse(
        `there is no option "${name}"${instead[name] !== undefined ? `; ${instead[name]}` : meant === undefined ? '' : `; did you mean "${meant}"?`} (the options: ${known.join(', ')})`,
      );
      continue;
    }
    if (value === undefined) continue;
    const problem = problemOf(rule, value);
    if (problem === undefined) continue;
    const flag = 'flag' in rule ? rule.flag : undefined;
    const named = flag === undefined ? `the ${name} option` : setting(name, flag);
    refuse(rule.kind === 'custom' ? `${named}: ${problem}` : `${named} ${problem}`);
  }
}
