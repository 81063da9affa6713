import type { Environment } from '../domain/model.js';
import { product } from '../errors.js';
import { type OptionsOf, type Settings, sharedOptions } from '../runtime/options.js';
import { parseRateLimit, rateLimitProblem } from '../runtime/rateLimiter.js';

/** An API key conform calls with, and its environment when given (else learnt by a probe). */
export interface ConformKey {
  readonly key: string;
  readonly environment?: Environment;
}

/** The options of `conformProvider`: those of `conformOptions` below, typed by their kind. */
export type ConformOptions = OptionsOf<
  typeof conformOptions,
  {
    /** Told after each sequence run: how many have run, of how many. */
    readonly onProgress: (done: number, runs: number) => void;
    readonly targets: readonly string[];
    readonly apiKeys: readonly (string | ConformKey)[];
    /** Calls at most per API key in each minute (`--rate-limit N/min`). */
    readonly rateLimit: number;
  }
>;

/** Every setting of `conform` and `conformProvider`: the one table their flags, help, defaults and checks come from. */
export const conformOptions = {
  targets: {
    kind: 'custom',
    check: (value) =>
      Array.isArray(value) && value.length > 0 && value.every((t) => typeof t === 'string')
        ? undefined
        : "must be a non-empty array of base URLs, e.g. ['https://staging.example.com']",
    flag: 'target',
    value: 'URL',
    multiple: true,
    env: 'USER_GROUP_MOCK_CONFORM_TARGETS',
    help: 'base URL of the service to test (required); repeatable: calls are spread across the targets, which must behave as one service (replicas)',
    fromText: (texts) => texts.map((text) => text.trim()).filter((text) => text !== ''),
    required: "the base URL of the service to test (e.g. { targets: ['https://staging.example.com'] })",
  },
  apiKeys: {
    kind: 'custom',
    check: (value) =>
      Array.isArray(value) && value.length > 0
        ? undefined
        : "must be a non-empty array, e.g. ['my-key:Testing']",
    flag: 'api-key',
    value: 'KEY[:ENV]',
    multiple: true,
    env: 'USER_GROUP_MOCK_CONFORM_API_KEYS',
    help: "KEY, KEY:Customer or KEY:Testing (required), repeatable: the keys of one account; a key without its environment has it learnt by a probe (an update's api_environment_tag). Two keys, one per environment, test the edges between them",
    fromText: (texts) => texts.map(parseConformKey),
    required: "an API key of the service (e.g. { apiKeys: ['my-key:Testing'] })",
  },
  runs: {
    env: 'USER_GROUP_MOCK_CONFORM_RUNS',
    kind: 'integer',
    min: 1,
    max: 1_000_000,
    help: 'random call sequences to run',
    default: 100,
  },
  maxCalls: {
    env: 'USER_GROUP_MOCK_CONFORM_MAX_CALLS',
    kind: 'integer',
    min: 1,
    max: 1_000,
    help: 'calls at most in one sequence',
    default: 12,
  },
  seed: {
    env: 'USER_GROUP_MOCK_CONFORM_SEED',
    kind: 'integer',
    min: -2_147_483_648,
    max: 2_147_483_647,
    help: 'the random seed (a failure prints the seed and the --path that replay it); default a fresh one',
  },
  path: {
    env: 'USER_GROUP_MOCK_CONFORM_PATH',
    kind: 'string',
    nonEmpty: true,
    help: 'with --seed, replays the shrunk sequence a failure printed (the path it printed, as it is)',
  },
  prefix: {
    env: 'USER_GROUP_MOCK_CONFORM_PREFIX',
    kind: 'string',
    nonEmpty: true,
    help: 'every user_group_id the run creates starts with it, then a random part of its own (printed)',
    default: 'ugm-conform-',
  },
  rateLimit: {
    env: 'USER_GROUP_MOCK_CONFORM_RATE_LIMIT',
    kind: 'custom',
    check: rateLimitProblem,
    value: 'N/min',
    help: 'calls at most per API key in each minute, spaced evenly, below a service that limits them (the real service allows 180/min); default: not paced',
    fromText: ([text = '']) => parseRateLimit(text),
  },
  timeout: {
    env: 'USER_GROUP_MOCK_CONFORM_TIMEOUT',
    kind: 'integer',
    min: 1,
    max: 3_600_000,
    help: 'ms a target has to answer one call',
    default: 10_000,
  },
  reportJunit: {
    env: 'USER_GROUP_MOCK_CONFORM_REPORT_JUNIT',
    kind: 'string',
    nonEmpty: true,
    value: 'FILE',
    help: 'write a JUnit XML report to FILE (one test case per rule)',
  },
  reportJson: {
    env: 'USER_GROUP_MOCK_CONFORM_REPORT_JSON',
    kind: 'string',
    nonEmpty: true,
    value: 'FILE',
    help: 'write the result as JSON to FILE',
  },
  onProgress: { kind: 'function' },
  help: sharedOptions.help,
} as const satisfies Settings;

/** `KEY`, `KEY:Customer` or `KEY:Testing`. */
export function parseConformKey(text: string): ConformKey {
  const match = /^([^\s:]+)(?::(Customer|Testing))?$/.exec(text.trim());
  const scheme = /^(Token|Bearer)\s+(\S+)$/i.exec(text.trim());
  if (match === null && scheme !== null)
    throw new Error(
      `${product}: --api-key "${text}" holds the word ${scheme[1]}: give the key alone (--api-key ${scheme[2]}); conform sends it as "Authorization: Token <key>" itself`,
    );
  const cased = /^([^\s:]+):(customer|testing)$/i.exec(text.trim());
  if (match === null && cased !== null) {
    const meant = `${cased[1]}:${cased[2]?.toLowerCase() === 'testing' ? 'Testing' : 'Customer'}`;
    throw new Error(
      `${product}: --api-key "${text}": the environment is spelt Customer or Testing, with a capital; did you mean --api-key ${meant}?`,
    );
  }
  if (match === null)
    throw new Error(
      `${product}: --api-key "${text}" must be KEY, KEY:Customer or KEY:Testing (the key's environment), e.g. --api-key my-key:Testing`,
    );
  const [, key = '', environment] = match;
  return environment === undefined ? { key } : { key, environment: environment as Environment };
}
