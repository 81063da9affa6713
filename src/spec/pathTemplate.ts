/** A path of the document, such as `/__admin/tokens/{token}`, matched segment by segment. */
export interface PathTemplate {
  readonly template: string;
  /** Whether the template has no `{parameter}` at all (then only an equal path matches). */
  readonly literal: boolean;
  /** The path parameters of a matching path, decoded; `undefined` when the path does not match. */
  match(path: string): Record<string, string> | undefined;
}

const parameter = /^\{([^{}]+)\}$/;

export function pathTemplate(template: string): PathTemplate {
  const segments = template.split('/').map((segment) => {
    const name = parameter.exec(segment)?.[1];
    return name === undefined ? { literal: segment } : { name };
  });
  const literal = segments.every((s) => 'literal' in s);
  return {
    template,
    literal,
    match(path) {
      if (literal) return path === template ? {} : undefined;
      const parts = path.split('/');
      if (parts.length !== segments.length) return undefined;
      const params: Record<string, string> = {};
      for (const [i, segment] of segments.entries()) {
        const part = parts[i] as string;
        if ('literal' in segment) {
          if (part !== segment.literal) return undefined;
        } else {
          if (part === '') return undefined;
          params[segment.name] = decode(part);
        }
      }
      return params;
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
