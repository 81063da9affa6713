import { parseArgs } from 'node:util';
import { product } from '../errors.js';
import type { LogLevel } from '../runtime/log.js';
import { logLevelRule } from '../runtime/options.js';
import { unknownFlag } from './suggest.js';

/** The environment variables a command reads its settings from. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A flag of a command's table: how it parses, its environment variable ('' for none) and its help line. */
export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  readonly env: string;
  readonly help: string;
  /** Repeatable on the command line (its environment variable then holds the values comma-separated). */
  readonly multiple?: boolean;
  /** What --help shows after the flag's name (default VALUE for a string flag). */
  readonly value?: string;
}

/** The flags serve and proxy share, each named in their tables from here. */
export const sharedFlags = {
  host: { type: 'string', env: 'USER_GROUP_MOCK_HOST', help: 'address to listen on (default 127.0.0.1)' },
  port: {
    type: 'string',
    env: 'USER_GROUP_MOCK_PORT',
    help: 'port to listen on; 0 picks a free one (default 4010)',
  },
  'log-level': {
    type: 'string',
    env: 'USER_GROUP_MOCK_LOG_LEVEL',
    help: 'silent | info | debug (default info); logs go to stderr',
  },
  'admin-key': {
    type: 'string',
    env: 'USER_GROUP_MOCK_ADMIN_KEY',
    help: 'key required on /__admin calls (required beyond loopback)',
  },
  help: { type: 'boolean', env: '', help: 'print this help' },
} as const satisfies Readonly<Record<string, FlagSpec>>;

/** The help lines of a flag table: name, value, help line and environment variable in brackets. */
export function flagHelpLines(flags: Readonly<Record<string, FlagSpec>>): string {
  return Object.entries(flags)
    .map(([name, flag]) => {
      const value = flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : '';
      const env = flag.env === '' ? '' : `  [${flag.env}]`;
      return `  --${name}${value}\n      ${flag.help}${env}`;
    })
    .join('\n');
}

/** A command line read against a flag table. */
export interface Flags<Name extends string> {
  /** What argv gave, as `parseArgs` returned it (a repeatable flag as an array). */
  readonly values: Readonly<Record<string, string | boolean | Array<string | boolean> | undefined>>;
  /** The flag's value, else its environment variable's; undefined when neither is set (an empty variable is unset). */
  get(name: Name): string | undefined;
  /** Whether a boolean flag is given, on the command line or as `1` or `true` in its environment variable. */
  on(name: Name): boolean;
}

/** Reads argv and env against `flags`; throws an Error naming an unknown or malformed flag and `<command> --help`. */
export function readFlags<Name extends string>(
  command: string,
  flags: Readonly<Record<Name, FlagSpec>>,
  argv: readonly string[],
  env: Env,
): Flags<Name> {
  const table: Readonly<Record<string, FlagSpec>> = flags;
  const options = Object.fromEntries(
    Object.entries(table).map(([name, flag]) => [
      name,
      { type: flag.type, ...(flag.multiple === true ? { multiple: true } : {}) },
    ]),
  ) as Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
  let values: Flags<Name>['values'];
  try {
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const message = unknownFlag(argv, options) ?? (error as Error).message;
    throw new Error(`${product}: ${message}. Run "user-group-mock ${command} --help" for the flags.`);
  }
  const get = (name: Name): string | undefined => {
    const value = values[name];
    if (typeof value === 'string') return value;
    const variable = flags[name].env;
    const fromEnv = variable === '' ? undefined : env[variable];
    return fromEnv === '' ? undefined : fromEnv;
  };
  return {
    values,
    get,
    on: (name) => values[name] === true || ['1', 'true'].includes(get(name) ?? ''),
  };
}

/** The --log-level given (default info), checked. */
export function logLevelOf(text: string | undefined): LogLevel {
  const level = text ?? 'info';
  if (!(logLevelRule.values as readonly string[]).includes(level))
    throw new Error(`${product}: --log-level must be ${logLevelRule.values.join(', ')}, not "${level}"`);
  return level as LogLevel;
}

/** A flag's whole number, in the range its option takes (src/runtime/options.ts, the in-process options' too). */
export function integer(
  name: string,
  text: string,
  range: { readonly min: number; readonly max: number },
): number {
  const { min, max } = range;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max)
    throw new Error(`${product}: --${name} must be an integer from ${min} to ${max}, not "${text}"`);
  return n;
}
