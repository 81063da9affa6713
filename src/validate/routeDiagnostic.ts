import type { Operation, Route } from '../spec/operations.js';
import { type Diagnostic, diagnostic } from './diagnostic.js';

/** The diagnostic for a request that matched no operation, with the likely mistake when it is a common one. */
export function routeDiagnostic(
  route: Exclude<Route, { kind: 'operation' }>,
  method: string,
  path: string,
  all: readonly Operation[],
): Diagnostic {
  if (route.kind === 'method-not-allowed') {
    const uses = all
      .filter((o) => o.path === path)
      .map((o) => `${o.method} (${o.operationId})`)
      .join(', ');
    return diagnostic(
      'METHOD_NOT_ALLOWED',
      '/method',
      `${method} is not allowed on ${path}; it answers ${uses}`,
    );
  }
  const near = route.known.find((known) => sameIgnoringCaseAndSlash(known, path));
  const hint =
    near === undefined
      ? `the service has ${route.known.map((k) => `"${k}"`).join(', ')}`
      : path.endsWith('/') && near === path.slice(0, -1)
        ? `did you mean "${near}"? The path has no trailing slash`
        : `did you mean "${near}"? Paths are case-sensitive`;
  return diagnostic('ROUTE_NOT_FOUND', '/path', `no operation at "${path}"; ${hint}`);
}

const sameIgnoringCaseAndSlash = (a: string, b: string): boolean =>
  a.toLowerCase().replace(/\/+$/, '') === b.toLowerCase().replace(/\/+$/, '');
