import { parseArgs } from 'node:util';
import { nearest } from '../validate/nearest.js';

/** A command's flags as node:util's parseArgs takes them. */
export type FlagOptions = Readonly<Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>;

/**
 * The first flag in argv that is not one of `options`, as a message: `unknown flag --prot (did you mean --port?)`.
 * Undefined when every flag is known (parseArgs then reports any other mistake).
 */
export function unknownFlag(argv: readonly string[], options: FlagOptions): string | undefined {
  const flags = Object.keys(options);
  const { tokens } = parseArgs({
    args: [...argv],
    options: { ...options },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== 'option' || flags.includes(token.name)) continue;
    const near =
      token.rawName.startsWith('--') || token.name.length > 1
        ? nearest(token.name, flags)
        : single(token.name, flags);
    return `unknown flag ${token.rawName}${near === undefined ? '' : ` (did you mean --${near}?)`}`;
  }
  return undefined;
}

/** `-p` for `--port`: the only flag with that first letter. */
function single(letter: string, flags: readonly string[]): string | undefined {
  const starting = flags.filter((name) => name.startsWith(letter));
  return starting.length === 1 ? starting[0] : undefined;
}
