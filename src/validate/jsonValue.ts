import { type Diagnostic, diagnostic, pointer } from './diagnostic.js';

/** Deepest nesting a body may have: ids and properties never need more. */
export const maxDepth = 32;
/** Keys that poison prototypes when a consumer merges the object; never accepted. */
export const forbiddenKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const maxDiagnostics = 20;

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * Checks what JSON Schema cannot: nesting depth, prototype-poisoning keys, numbers that do not survive a round
 * trip, lone surrogates, and values that are not JSON at all. Iterative, so 100,000-deep input cannot overflow the
 * stack; stops at the first 20 problems.
 */
export function inspectJsonValue(root: unknown, base = '/body'): Diagnostic[] {
  const found: Diagnostic[] = [];
  const stack: Array<[unknown, number, string]> = [[root, 0, base]];
  while (stack.length > 0 && found.length < maxDiagnostics) {
    const [value, depth, path] = stack.pop() as [unknown, number, string];
    switch (typeof value) {
      case 'string':
        if (!value.isWellFormed()) found.push(loneSurrogate(path));
        continue;
      case 'number':
        if (!Number.isFinite(value)) {
          found.push(
            diagnostic(
              'BODY_NUMBER_OUT_OF_RANGE',
              path,
              `${place(path)} is not a finite number (e.g. 1e400); send numbers a double can hold`,
            ),
          );
        } else if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
          found.push(
            diagnostic(
              'BODY_NUMBER_OUT_OF_RANGE',
              path,
              `${place(path)} is an integer beyond 2^53 - 1 and loses precision in JSON; send it as a string`,
            ),
          );
        }
        continue;
      case 'boolean':
        continue;
      case 'object':
        if (value === null) continue;
        break;
      default:
        found.push(
          diagnostic(
            'BODY_INVALID_JSON',
            path,
            `${place(path)} is a ${typeof value}, which JSON cannot carry`,
          ),
        );
        continue;
    }
    if (depth >= maxDepth) {
      found.push(
        diagnostic(
          'BODY_TOO_DEEP',
          path,
          `${place(path)} is nested deeper than ${maxDepth} levels; flatten the body`,
        ),
      );
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], depth + 1, pointer(path, i)]);
      continue;
    }
    if (!isPlainObject(value)) {
      found.push(
        diagnostic(
          'BODY_INVALID_JSON',
          path,
          `${place(path)} is a ${value.constructor?.name ?? 'non-plain object'}, not a JSON object`,
        ),
      );
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      const child = pointer(path, key);
      if (forbiddenKeys.has(key)) {
        found.push(
          diagnostic(
            'BODY_FORBIDDEN_KEY',
            child,
            `${place(child)}: the key "${key}" is refused because it poisons prototypes; rename it`,
          ),
        );
      } else if (!key.isWellFormed()) {
        found.push(loneSurrogate(child));
      } else {
        stack.push([(value as Record<string, unknown>)[key], depth + 1, child]);
      }
    }
  }
  return found;
}

const place = (path: string): string => path.slice(1);

const loneSurrogate = (path: string): Diagnostic =>
  diagnostic(
    'BODY_INVALID_ENCODING',
    path,
    `${place(path)} contains a lone UTF-16 surrogate (e.g. "\\ud800"); send well-formed Unicode`,
  );
