import { product } from '../errors.js';
import { nearest } from '../validate/nearest.js';

/**
 * The settings of a command, one table each (`serveOptions`, `proxyOptions`, `verifyOptions`): the command line
 * reads its flags and --help from the table (src/cli/flags.ts); `createMockServer` and `createValidatingProxy`
 * check their options and fill their defaults from it, so both ways of giving a setting get the same messages.
 */

/** How a message names a setting, for both ways of giving it: `the timeout option (--timeout)`. */
export const setting = (option: string, flag: string = option): string => `the ${option} option (--${flag})`;

export type OptionRule =
  | { readonly kind: 'integer'; readonly min: number; readonly max: number }
  | { readonly kind: 'string'; readonly nonEmpty?: boolean }
  | { readonly kind: 'oneOf'; readonly values: readonly string[] }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'function' }
  | { readonly kind: 'object' }
  | { readonly kind: 'custom'; readonly check: (value: unknown) => string | undefined };

/** One setting: its check, and how the command line and --help give it. */
export type Setting = OptionRule & {
  /**
   * The flag's line in --help (its default is added from `default`). A setting with a help line has a flag: `flag`,
   * else its name in kebab case (`bodyLimit`: `--body-limit`); one without is an option only in process.
   */
  readonly help?: string;
  readonly flag?: string;
  /** The environment variable the flag falls back to: `env`, else `USER_GROUP_MOCK_` and the flag (`''`: none). */
  readonly env?: string;
  /** What --help shows after the flag (default VALUE for a flag that takes text). */
  readonly value?: string;
  /** Repeatable on the command line; the environment variable then holds the values comma-separated. */
  readonly multiple?: boolean;
  readonly default?: string | number | boolean;
  /** The command line's default, where it differs from the in-process one (a fixed port, logs on). */
  readonly flagDefault?: string | number;
  /** Reads the flag's text where the kind does not say how (`--api-key KEY:ENV`, `--rate-limit N/min`). */
  readonly fromText?: (texts: readonly string[]) => unknown;
  /** A flag of the command line only, not an option: what a caller in process who gives it is told instead. */
  readonly flagOnly?: string;
  /** An option every caller in process must give: what it is, said when it is missing. */
  readonly required?: string;
};

export type Settings = Readonly<Record<string, Setting>>;

/** The flag of the setting `name`, without `--`, or undefined for an option only in process. */
export function flagOf(name: string, entry: Setting): string | undefined {
  if (entry.help === undefined) return undefined;
  return entry.flag ?? name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

export function envOf(flag: string, entry: Setting): string | undefined {
  if (entry.env === '') return undefined;
  return entry.env ?? `USER_GROUP_MOCK_${flag.toUpperCase().replaceAll('-', '_')}`;
}

export const sharedOptions = {
  host: {
    kind: 'string',
    nonEmpty: true,
    help: 'address to listen on; beyond loopback (127.0.0.0/8, ::1, localhost) --admin-key is required',
    default: '127.0.0.1',
  },
  port: {
    kind: 'integer',
    min: 0,
    max: 65535,
    help: 'port to listen on; 0 picks a free one',
    default: 0,
    flagDefault: 4010,
  },
  bodyLimit: {
    kind: 'integer',
    min: 1,
    max: 1024 ** 3,
    help: 'largest body in bytes',
    default: 1024 * 1024,
  },
  logLevel: {
    kind: 'oneOf',
    values: ['silent', 'info', 'debug'],
    help: 'silent | info | debug; logs go to stderr',
    default: 'silent',
    flagDefault: 'info',
  },
  adminKey: {
    kind: 'string',
    value: 'KEY',
    help: 'key required on /__admin calls (required beyond loopback)',
  },
  onWarning: { kind: 'function' },
  help: { kind: 'boolean', help: 'print this help', env: '', flagOnly: '' },
} as const satisfies Settings;

/** The value an option of `rule` takes, where its kind says it; `unknown` where `OptionsOf` is told the type. */
type ValueOf<Rule> = Rule extends { readonly kind: 'integer' }
  ? number
  : Rule extends { readonly kind: 'string' }
    ? string
    : Rule extends { readonly kind: 'oneOf'; readonly values: readonly (infer V)[] }
      ? V
      : Rule extends { readonly kind: 'boolean' }
        ? boolean
        : unknown;

/**
 * The in-process options of a table, each optional (the flags of the command line alone left out): typed by its
 * kind, or by `Typed` (the options of kind custom, object or function).
 */
export type OptionsOf<S extends Settings, Typed> = {
  readonly [N in keyof S as S[N] extends { readonly flagOnly: string } ? never : N]?: N extends keyof Typed
    ? Typed[N]
    : ValueOf<S[N]>;
};

type Defaulted<S> = { [N in keyof S]: S[N] extends { readonly default: unknown } ? N : never }[keyof S];

/** The options given, each one not given (or given as undefined) filled with its setting's default. */
export type WithDefaults<O, S> = O & { readonly [K in keyof O & Defaulted<S>]-?: Exclude<O[K], undefined> };

export function withDefaults<O extends object, S extends Settings>(
  settings: S,
  options: O,
): WithDefaults<O, S> {
  const values: Record<string, unknown> = {};
  for (const [name, { default: value }] of Object.entries(settings))
    if (value !== undefined) values[name] = value;
  for (const [name, value] of Object.entries(options)) if (value !== undefined) values[name] = value;
  return values as WithDefaults<O, S>;
}

/** `a`, `a or b`, `a, b or c`. */
const either = (values: readonly string[]): string =>
  values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;

/** Why `value` breaks `rule`, or undefined; `given` is how the message quotes it (a flag's text, as typed). */
export function problemOf(rule: OptionRule, value: unknown, given = value): string | undefined {
  const was = `not ${typeof given === 'string' ? JSON.stringify(given) : String(given)}`;
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
      return `must be ${either(rule.values)}, ${was}${meant === undefined ? '' : `; did you mean "${meant}"?`}`;
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
 * option (with the one it most likely meant), or a value its option cannot take. Throws `Refusal` (a TypeError)
 * naming the option, its flag and the fix, or a required option missing. Options given as undefined count as not given.
 */
export function checkOptions(
  entry: string,
  options: unknown,
  settings: Settings,
  Refusal: new (message: string) => TypeError = TypeError,
): void {
  function refuse(message: string): never {
    throw new Refusal(`${product}: ${entry}: ${message}`);
  }
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options)))
    refuse(`the options are an object, e.g. ${entry}({ port: 0 }), not ${JSON.stringify(options)}`);
  const given = (options ?? {}) as Readonly<Record<string, unknown>>;
  const named = (name: string, rule: Setting): string => {
    const flag = flagOf(name, rule);
    return flag === undefined ? `the ${name} option` : setting(name, flag);
  };
  for (const [name, rule] of Object.entries(settings))
    if (rule.required !== undefined && given[name] === undefined)
      refuse(`${named(name, rule)} is required, ${rule.required}`);
  const known = Object.keys(settings).filter((name) => settings[name]?.flagOnly === undefined);
  for (const [name, value] of Object.entries(given)) {
    const rule = known.includes(name) ? settings[name] : undefined;
    if (rule === undefined) {
      const instead = settings[name]?.flagOnly || undefined;
      const meant = nearest(name, known);
      refuse(
        `there is no option "${name}"${instead !== undefined ? `; ${instead}` : meant === undefined ? '' : `; did you mean "${meant}"?`} (the options: ${known.join(', ')})`,
      );
    }
    if (value === undefined) continue;
    const problem = problemOf(rule, value);
    if (problem === undefined) continue;
    refuse(rule.kind === 'custom' ? `${named(name, rule)}: ${problem}` : `${named(name, rule)} ${problem}`);
  }
}
