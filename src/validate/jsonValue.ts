import type { ErrorCode } from '../errors.js';
import { type Diagnostic, diagnostic, place, pointer } from './diagnostic.js';

/** A problem of a value, named by the catalogue's error that refuses it. */
type ValueProblem = Diagnostic & { code: ErrorCode };

/** Deepest nesting a body may have: ids and properties never need more. */
export const maxDepth = 32;
/** Keys that poison prototypes when a consumer merges the object; never accepted. */
export const forbiddenKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const lengths = [...forbiddenKeys].map((key) => key.length);
const shortest = Math.min(...lengths);
const longest = Math.max(...lengths);
/** Whether a key is forbidden; most keys are told apart by length alone, without hashing them. */
export const isForbiddenKey = (key: string): boolean =>
  key.length >= shortest && key.length <= longest && forbiddenKeys.has(key);
const maxDiagnostics = 20;

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * Checks what JSON Schema cannot: nesting depth, prototype-poisoning keys, numbers beyond a double's range, lone
 * surrogates, and values that are not JSON at all. Iterative, so 100,000-deep input cannot overflow the
 * stack; stops at the first 20 problems.
 */
export function inspectJsonValue(root: unknown): ValueProblem[] {
  const found: ValueProblem[] = [];
  // Each entry: a value, its depth, and how to name it (parent entry and key): pointers are built only for problems.
  const stack: Frame[] = [{ value: root, depth: 0, parent: undefined, key: '/body' }];
  while (stack.length > 0 && found.length < maxDiagnostics) {
    const frame = stack.pop() as Frame;
    const { value, depth } = frame;
    switch (typeof value) {
      case 'string':
        if (!value.isWellFormed()) report(found, frame, 'BODY_INVALID_ENCODING', loneSurrogate);
        continue;
      case 'number':
        // An integer beyond 2^53 - 1 is legal (JSON text may carry one; `impreciseIntegers` warns about it).
        if (!Number.isFinite(value))
          report(
            found,
            frame,
            'BODY_NUMBER_OUT_OF_RANGE',
            ' is not a finite number: JSON such as 1e400 overflows a double and cannot be stored or read back; send a number of magnitude at most 1.7976931348623157e308, or a string',
          );
        continue;
      case 'boolean':
        continue;
      case 'object':
        if (value === null) continue;
        break;
      default:
        report(found, frame, 'BODY_INVALID_JSON', ` is a ${typeof value}, which JSON cannot carry`);
        continue;
    }
    if (depth >= maxDepth) {
      report(found, frame, 'BODY_TOO_DEEP', ` is nested deeper than ${maxDepth} levels; flatten the body`);
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], depth: depth + 1, parent: frame, key: i });
      continue;
    }
    if (!isPlainObject(value)) {
      const kind = value.constructor?.name ?? 'non-plain object';
      report(found, frame, 'BODY_INVALID_JSON', ` is a ${kind}, not a JSON object`);
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      const child: Frame = {
        value: (value as Record<string, unknown>)[key],
        depth: depth + 1,
        parent: frame,
        key,
      };
      if (isForbiddenKey(key))
        report(
          found,
          child,
          'BODY_FORBIDDEN_KEY',
          `: the key "${key}" is refused because it poisons prototypes; rename it`,
        );
      else if (!key.isWellFormed()) report(found, child, 'BODY_INVALID_ENCODING', loneSurrogate);
      else stack.push(child);
    }
  }
  return found;
}

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: string | number;
}

/** The JSON pointer of a frame (the root frame's key is the base pointer itself). */
function pathOf(frame: Frame): string {
  return frame.parent === undefined ? String(frame.key) : pointer(pathOf(frame.parent), frame.key);
}

function report(found: ValueProblem[], frame: Frame, code: ValueProblem['code'], what: string): void {
  const path = pathOf(frame);
  found.push(diagnostic(code, path, `${place(path)}${what}`));
}

const loneSurrogate = ' contains a lone UTF-16 surrogate (e.g. "\\ud800"); send well-formed Unicode';
