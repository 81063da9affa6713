import { type ApiError, errorFromDiagnostics } from '../errors.js';
import { type Diagnostic, diagnostic, pointer } from '../validate/diagnostic.js';
import { requestFieldNames } from '../validate/mistakes.js';
import type { Routed } from './pipelineRequest.js';

/**
 * Step 2b, query: the service takes no query parameters (every operation's input is its JSON body), so a query
 * string is refused rather than ignored: a field sent there would otherwise be reported missing from the body with
 * no word of where it went. A bare `?` carries nothing and passes.
 */
export function checkQuery(request: Routed): ApiError | undefined {
  const query = request.query;
  if (query === undefined || query === '') return undefined;
  const fields = requestFieldNames(request.operation);
  const names = new Set<string>();
  for (const part of query.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    names.add(decoded(equals === -1 ? part : part.slice(0, equals)));
  }
  if (names.size === 0) return undefined;
  const found: Diagnostic[] = [...names].map((name) =>
    diagnostic(
      'UNKNOWN_QUERY_PARAMETER',
      pointer('/query', name),
      fields.includes(name)
        ? `the query has "${name}", but ${request.method} ${request.path} takes no query parameters: send "${name}" in the JSON body`
        : `the query has "${name}", but ${request.method} ${request.path} takes no query parameters; remove it (the request's fields are ${fields.map((f) => `"${f}"`).join(', ')}, in the JSON body)`,
    ),
  );
  return errorFromDiagnostics('VALIDATION_FAILED', found);
}

/** A query name as the client meant it (`+` a space, percent-escapes decoded); kept as sent when malformed. */
function decoded(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}
