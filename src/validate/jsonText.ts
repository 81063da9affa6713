import { type ApiError, type ErrorCode, errorFromDiagnostics } from '../errors.js';
import { failure, ok, type Result } from '../result.js';
import { type Diagnostic, diagnostic, errorAt, place, pointer, type Voice } from './diagnostic.js';
import { isForbiddenKey, maxDepth } from './jsonValue.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A parsed body and its text. `clean` is true when the text alone shows that the value passes `inspectJsonValue`: well-formed Unicode without escapes (so no lone
 * surrogate), no numbers (so none out of range) and no key that poisons prototypes. Such a value need not be walked
 * again. `warnings` name legal but risky values (an integer literal beyond 2^53 - 1); the body is still accepted.
 */
export interface ParsedJson {
  readonly value: unknown;
  readonly text: string;
  readonly clean: boolean;
  readonly warnings?: readonly Diagnostic[];
}

/** What each refusal says, to the client of a request or to the service of an answer. */
const says = {
  request: {
    bom: 'body starts with a UTF-8 byte order mark; JSON over HTTP must not carry one, remove it',
    utf8: 'body is not valid UTF-8; encode the JSON text as UTF-8',
    empty: 'body is empty; send the JSON object with a Content-Length header',
    json: (reason: string) => `body is not valid JSON (${reason}); send JSON.stringify(body)`,
    deep: `body is nested deeper than ${maxDepth} levels; flatten the body`,
    repeated: (key: string) => `body repeats the key "${key}" in one object; send each key once`,
  },
  answer: {
    bom: 'the answer starts with a UTF-8 byte order mark; the service must not send one',
    utf8: 'the answer is not valid UTF-8; the service must encode its JSON as UTF-8',
    empty: 'the answer has no body; the service must answer JSON',
    json: (reason: string) => `the answer is not JSON (${reason}); the service must answer application/json`,
    deep: `the answer is nested deeper than ${maxDepth} levels`,
    repeated: (key: string) =>
      `the answer repeats the key "${key}" in one object; the service must send each key once`,
  },
} as const;

/**
 * Turns the bytes of a request body into a JSON value, or the error naming the client's mistake (its details the
 * diagnostics); with `voice` = `answer`, the bytes of an answer, the messages then speaking to the service.
 * Rules beyond JSON.parse: no byte order mark, valid UTF-8, no duplicate keys in one object, nesting within
 * `maxDepth`. What the parsed value itself must satisfy is `inspectJsonValue`'s part (the pipeline's `checkValues` runs it).
 */
export function parseJsonBody(bytes: Uint8Array | string, voice: Voice = 'request'): Result<ParsedJson> {
  const say = says[voice];
  if (typeof bytes !== 'string' && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return failed('BODY_INVALID_ENCODING', say.bom);
  let text: string;
  try {
    text = typeof bytes === 'string' ? bytes : decoder.decode(bytes);
  } catch {
    return failed('BODY_INVALID_ENCODING', say.utf8);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (text.trim() === '') {
      return failed('BODY_MISSING', say.empty);
    }
    const reason = error instanceof Error ? error.message : String(error);
    if (voice === 'request' && endsEarly(reason, text))
      return failed('BODY_INVALID_JSON', `body is not valid JSON (${reason}): ${truncated(text)}`);
    return failed('BODY_INVALID_JSON', say.json(reason));
  }
  const warnings: Diagnostic[] = [];
  const scanned = scanStructure(text, say, warnings);
  if (typeof scanned !== 'boolean') return failure(errorFromDiagnostics(scanned.code, [scanned]));
  // Decoded bytes are well-formed (the decoder is fatal); text handed over as a string may hold a raw lone surrogate.
  const clean = scanned && (typeof bytes !== 'string' || text.isWellFormed());
  return ok(warnings.length === 0 ? { value, text, clean } : { value, text, clean, warnings });
}

/** Whether JSON.parse failed because the text stops before the value does (a body cut short). */
function endsEarly(reason: string, text: string): boolean {
  if (/Unexpected end of JSON input|Unterminated string/.test(reason)) return true;
  const at = /at position (\d+)/.exec(reason)?.[1];
  return at !== undefined && Number(at) >= text.trimEnd().length;
}

/**
 * What a body cut short most likely means. A Content-Length counted in characters (`body.length`) is short of
 * the bytes of a body with non-ASCII characters: the body is cut, and its last bytes arrive as a next request.
 */
const truncated = (text: string): string =>
  /[\u0080-\u{10ffff}]/u.test(text)
    ? 'the body ends before the JSON does, and it has non-ASCII characters: Content-Length must count bytes (Buffer.byteLength(body)), not characters (body.length); let the HTTP client set it'
    : 'the body ends before the JSON does; send the whole JSON.stringify(body), with the Content-Length the HTTP client sets';

const failed = (code: ApiError['code'], message: string): Result<never> =>
  failure(errorAt(code, '/body', message));

/**
 * One pass over valid JSON text that finds what JSON.parse hides: a key repeated in one object (JSON.parse keeps
 * the last silently), nesting deeper than `maxDepth` (reported before any recursive walk), and integer literals
 * JSON.parse rounds (added to `warnings`). Without a problem it returns whether the text is clean (see `ParsedJson`).
 */
function scanStructure(
  text: string,
  say: (typeof says)[Voice],
  warnings: Diagnostic[],
): (Diagnostic & { code: ErrorCode }) | boolean {
  // The keys seen so far in each open object (null for an array): a short list, a Set once it grows, since most
  // objects have a handful of keys and a body may have thousands.
  const keys: Array<string[] | Set<string> | null> = [];
  // Where the scan is in each open container (the key being read, or the element's index): a repeated key's place.
  const at: Array<string | number> = [];
  let expectKey = false;
  // Without a backslash anywhere, a string ends at the next quote: found with indexOf, not char by char.
  let clean = text.indexOf('\\') === -1;
  const plain = clean;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x30 /* 0 */ && c <= 0x39) /* 9 */ || c === 0x2d /* - */) {
      clean = false; // a number: outside strings, only numbers hold digits and '-'
      const start = i;
      while (i + 1 < text.length && numberPart(text.charCodeAt(i + 1))) i++;
      if (i - start >= 15) imprecise(text.slice(start, i + 1), at, warnings);
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      keys.push(c === 0x7b ? [] : null);
      at.push(c === 0x7b ? '' : 0);
      if (keys.length > maxDepth) {
        return diagnostic('BODY_TOO_DEEP', '/body', say.deep);
      }
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      keys.pop();
      at.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = keys.length - 1;
      expectKey = (keys[top] ?? null) !== null;
      if (!expectKey) at[top] = (at[top] as number) + 1;
    } else if (c === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      if (plain) i = text.indexOf('"', i + 1);
      else {
        for (i++; i < text.length; i++) {
          const d = text.charCodeAt(i);
          if (d === 0x5c /* \ */) {
            escaped = true;
            i++;
          } else if (d === 0x22) break;
        }
      }
      if (!expectKey) continue;
      expectKey = false;
      const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
      if (isForbiddenKey(key)) clean = false;
      const seen = keys[keys.length - 1] as string[] | Set<string>;
      if (Array.isArray(seen) ? seen.includes(key) : seen.has(key)) {
        const path = pointer(at.slice(0, -1).reduce<string>(pointer, '/body'), key);
        return diagnostic('BODY_DUPLICATE_KEY', path, say.repeated(key));
      }
      at[at.length - 1] = key;
      if (!Array.isArray(seen)) seen.add(key);
      else if (seen.push(key) > 16) keys[keys.length - 1] = new Set(seen);
    }
  }
  return clean;
}

/** Whether a character can be part of a number: a digit, `.`, `e`, `E`, `+` or `-`. */
const numberPart = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;

const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Warns of an integer literal beyond 2^53 - 1 (at the place `at` names). Such a body is legal JSON and matches the
 * schemas, so it is accepted; but `JSON.parse` (and so every JavaScript client, and this mock's store) rounds the
 * number to the nearest double, and the caller should hear about it. Only literals written as integers count:
 * `1e300` and `1.5e16` are ordinary doubles written in exponent form.
 */
function imprecise(literal: string, at: readonly (string | number)[], warnings: Diagnostic[]): void {
  if (!/^-?\d+$/.test(literal) || BigInt(literal.replace('-', '')) <= maxSafe) return;
  const path = at.reduce<string>(pointer, '/body');
  warnings.push(
    diagnostic(
      'IMPRECISE_INTEGER',
      path,
      `${place(path)} is the integer ${literal}, whose magnitude exceeds 2^53 - 1: JSON.parse, and so every JavaScript client, reads it as ${String(Number(literal))}, and so does the mock. Send it as a string if every digit matters`,
    ),
  );
}
