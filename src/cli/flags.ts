import { parseArgs } from 'node:util';
import { product } from '../errors.js';
import { envOf, flagOf, problemOf, type Setting, type Settings } from '../runtime/options.js';
import { unknownFlag } from './suggest.js';

/** The environment variables a command reads its settings from. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A setting of a command that has a flag: its name, flag and environment variable resolved. */
export type Flag = Setting & {
  readonly name: string;
  readonly flag: string;
  readonly env: string | undefined;
};

/** A command's settings that have a flag, keyed by the flag. */
export function flagsOf(settings: Settings): Readonly<Record<string, Flag>> {
  return Object.fromEntries(
    Object.entries(settings).flatMap(([name, entry]) => {
      const flag = flagOf(name, entry);
      return flag === undefined ? [] : [[flag, { ...entry, name, flag, env: envOf(flag, entry) }]];
    }),
  );
}

/**
 * The --help of a command: its usage, what it does, its flags from its settings (flag, value, help line,
 * default, environment variable in brackets), and any text after them.
 */
export function commandHelp(usage: string, about: string, settings: Settings, after = ''): string {
  const flags = Object.values(flagsOf(settings)).map((entry) => {
    const value = entry.kind === 'boolean' ? '' : ` ${placeholder(entry)}`;
    const fallback = entry.flagDefault ?? entry.default;
    const byDefault = fallback === undefined || fallback === false ? '' : ` (default ${fallback})`;
    const env = entry.env === undefined ? '' : `  [${entry.env}]`;
    return `  --${entry.flag}${value}\n      ${entry.help}${byDefault}${env}`;
  });
  return `Usage: user-group-mock ${usage}\n\n${about}\n\nFlags (environment variable in brackets):\n${flags.join('\n')}\n${after}`;
}

/**
 * Reads a command line with `parse`: its options, or the exit code once the mistake (exit 2, as every command's
 * usage errors) or the help (exit 0) is printed.
 */
export function commandLine<Args extends { readonly help?: unknown }>(
  parse: () => Args,
  help: () => string,
): Args | number {
  let args: Args;
  try {
    args = parse();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  if (args.help !== true) return args;
  process.stdout.write(help());
  return 0;
}

/** A command line read against a command's settings. */
export interface Flags<Name extends string> {
  /**
   * Each setting with a flag: its text from the flag, else from its environment variable (an empty variable is
   * unset), read and checked (a boolean: given, or `1` or `true`); else the command line's default, if any.
   */
  readonly options: Readonly<Partial<Record<Name, unknown>>>;
  /** Where the setting's text came from: its flag, its environment variable, or neither. */
  source(name: Name): 'flag' | 'env' | undefined;
}

/** Reads argv and env against `settings`; throws an Error naming an unknown or malformed flag and the fix. */
export function readFlags<Name extends string>(
  command: string,
  settings: Readonly<Record<Name, Setting>>,
  argv: readonly string[],
  env: Env,
): Flags<Name> {
  const flags = flagsOf(settings);
  const parsing = Object.fromEntries(
    Object.entries(flags).map(([flag, entry]) => [
      flag,
      { type: entry.kind === 'boolean' ? 'boolean' : 'string', multiple: entry.multiple === true },
    ]),
  ) as Record<string, { type: 'string' | 'boolean'; multiple: boolean }>;
  let values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  try {
    values = parseArgs({ args: [...argv], options: parsing, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const message =
      unknownFlag(argv, parsing) ??
      valueMissing(error as Error, flags) ??
      (error as Error).message.replace(/\.$/, '');
    throw new Error(`${product}: ${message}. Run "user-group-mock ${command} --help" for the flags.`);
  }
  const options: Partial<Record<Name, unknown>> = {};
  const sources = new Map<Name, 'flag' | 'env'>();
  for (const entry of Object.values(flags)) {
    const name = entry.name as Name;
    const given = values[entry.flag];
    const variable = entry.env === undefined || env[entry.env] === '' ? undefined : env[entry.env];
    if (given !== undefined || variable !== undefined)
      sources.set(name, given !== undefined ? 'flag' : 'env');
    if (entry.kind === 'boolean') {
      options[name] = given === true || (given === undefined && ['1', 'true'].includes(variable ?? ''));
      continue;
    }
    const listed = variable === undefined ? undefined : entry.multiple ? variable.split(',') : [variable];
    const texts = given === undefined ? listed : ([given].flat() as string[]);
    const fallback = entry.flagDefault ?? entry.default;
    if (texts !== undefined) options[name] = fromText(entry, entry.flag, texts);
    else if (fallback !== undefined) options[name] = fallback;
  }
  return { options, source: (name) => sources.get(name) };
}

/** A flag's text as its setting's value: a whole number in its range, one of its words, or as its setting reads it. */
function fromText(entry: Setting, flag: string, texts: readonly string[]): unknown {
  if (entry.fromText !== undefined) return entry.fromText(texts);
  const [text = ''] = texts;
  if (entry.kind !== 'integer' && entry.kind !== 'oneOf') return text;
  const value = entry.kind === 'integer' && /^\d+$/.test(text.trim()) ? Number(text) : text;
  const problem = problemOf(entry, value, text);
  if (problem !== undefined) throw new Error(`${product}: --${flag} ${problem}`);
  return value;
}

/** What a flag's value is called in --help: its own word, N for a number, the choices, else VALUE. */
function placeholder(entry: Flag): string {
  return (
    entry.value ??
    (entry.kind === 'integer' ? 'N' : entry.kind === 'oneOf' ? entry.values.join('|') : 'VALUE')
  );
}

/**
 * node:util's parseArgs on a flag given without its value (last, or followed by another flag): which flag, and what
 * it takes, in place of its "Option '--port <value>' argument missing".
 */
function valueMissing(error: Error, flags: Readonly<Record<string, Flag>>): string | undefined {
  const named = /^Option '--([\w-]+)(?: <value>)?' argument (?:missing|is ambiguous)/.exec(error.message);
  const entry = named === null ? undefined : flags[named[1] as string];
  if (entry === undefined) return undefined;
  return `--${entry.flag} needs a value: --${entry.flag} ${placeholder(entry)} (a value that starts with a dash goes as --${entry.flag}=VALUE)`;
}
