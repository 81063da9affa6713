import { type Diagnostic, diagnostic, place, pointer } from './diagnostic.js';

/**
 * Integer literals beyond 2^53 - 1 in JSON text, with each one's place in the parsed value. Such a body is legal
 * JSON and matches the schemas, so it is accepted; but `JSON.parse` (and so every JavaScript client, and this mock's
 * store) rounds the number to the nearest double, and the caller should hear about it. Only literals written as
 * integers count: `1e300` and `1.5e16` are ordinary doubles written in exponent form.
 *
 * Cheap on the usual body: without a run of 16 digits there is no such literal, and the text is not scanned further.
 */
export function impreciseIntegers(text: string, value: unknown, base = '/body'): Diagnostic[] {
  if (!sixteenDigits.test(text)) return [];
  const literals = new Map<number, string>();
  for (const match of text.matchAll(integerLiteral)) {
    const literal = match[1];
    if (literal === undefined) continue; // a string, skipped whole
    const digits = literal.replace(/^-/, '');
    if (digits.length < 16 || BigInt(digits) <= maxSafe) continue;
    literals.set(Number(literal), literal);
  }
  if (literals.size === 0) return [];
  const found: Diagnostic[] = [];
  walk(value, base, (number, path) => {
    const literal = literals.get(number);
    if (literal === undefined) return;
    found.push(
      diagnostic(
        'IMPRECISE_INTEGER',
        path,
        `${place(path)} is the integer ${literal}, whose magnitude exceeds 2^53 - 1: JSON.parse, and so every JavaScript client, reads it as ${String(number)}, and so does the mock. Send it as a string if every digit matters`,
      ),
    );
  });
  return found;
}

const sixteenDigits = /\d{16}/;
const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);
/** A string (skipped), or an integer literal: digits not touching a `.`, an exponent or a sign of one. */
const integerLiteral = /"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])(-?\d+)(?![\d.eE])/g;

/** Calls `visit` for every number in a parsed JSON value (bounded depth: the text scan refused deeper bodies). */
function walk(value: unknown, path: string, visit: (n: number, path: string) => void): void {
  if (typeof value === 'number') visit(value, path);
  else if (Array.isArray(value))
    for (let i = 0; i < value.length; i++) walk(value[i], pointer(path, i), visit);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) walk(item, pointer(path, key), visit);
}
