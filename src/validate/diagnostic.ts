import type { Diagnostic } from '../spec/types.js';

export type { Diagnostic };

/** What a validator returns: never an exception. */
export type Validation<T> =
  | { readonly ok: true; readonly value: T; readonly diagnostics: readonly [] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

export const valid = <T>(value: T): Validation<T> => ({ ok: true, value, diagnostics: [] });
export const invalid = <T>(diagnostics: readonly Diagnostic[]): Validation<T> => ({ ok: false, diagnostics });

export const diagnostic = (code: string, path: string, message: string): Diagnostic => ({
  code,
  path,
  message,
});

/** Appends one segment to a JSON pointer, escaping `~` and `/`. */
export const pointer = (base: string, segment: string | number): string =>
  `${base}/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** `/body/user_group_id` -> `body/user_group_id`, the way messages name a place. */
export const place = (path: string): string => (path === '' ? 'the request' : path.slice(1));
