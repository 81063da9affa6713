import { match as compile } from 'path-to-regexp';

/** A path of the document, such as `/__admin/tokens/{token}`, matched segment by segment. */
export interface PathTemplate {
  /** Whether the template has no `{parameter}` at all (then only an equal path matches). */
  readonly literal: boolean;
  /** The path parameters of a matching path, decoded; `undefined` when the path does not match. */
  match(path: string): Record<string, string> | undefined;
}

/**
 * Each `{parameter}` of the template is one whole segment, never empty; paths are compared case-sensitively and
 * a trailing slash is not ignored (path-to-regexp, the matcher Express routes with).
 */
export function pathTemplate(template: string): PathTemplate {
  const match = compile<Record<string, string>>(template.replaceAll(/\{([^{}]+)\}/g, ':"$1"'), {
    decode,
    sensitive: true,
    trailing: false,
  });
  return {
    literal: !template.includes('{'),
    match(path) {
      const found = match(path);
      return found === false ? undefined : found.params;
    },
  };
}

/** Percent-decodes one segment; a malformed escape is kept as sent, for the parameter's schema to reject. */
function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
