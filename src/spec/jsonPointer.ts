/** Appends one segment to a JSON pointer, escaping `~` and `/` (RFC 6901); free of Node, for the pages too. */
export const pointer = (base: string, segment: string | number): string =>
  `${base}/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`;
