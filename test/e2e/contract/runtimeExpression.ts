/**
 * OpenAPI runtime expressions (the values of a Link Object's `parameters` and `requestBody`), evaluated over one
 * finished call the way stateful testers such as Schemathesis do: a string that is an expression is replaced by its
 * value, `{expression}` inside a string by its text, and objects and arrays are evaluated member by member.
 */

/** One call as a link's source: what was sent and what came back. */
export interface Exchange {
  readonly method: string;
  readonly url: string;
  readonly request: { readonly headers: Readonly<Record<string, string>>; readonly body: unknown };
  readonly response: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string | string[] | undefined>>;
    readonly body: unknown;
  };
}

/** Evaluates a link value: literals stay as they are; an expression that finds nothing throws, naming it. */
export function evaluate(value: unknown, exchange: Exchange): unknown {
  if (Array.isArray(value)) return value.map((item) => evaluate(item, exchange));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, evaluate(v, exchange)]));
  if (typeof value !== 'string') return value;
  if (value.startsWith('$')) return expression(value, exchange);
  return value.replaceAll(/\{(\$[^}]+)\}/g, (_, inner: string) => String(expression(inner, exchange)));
}

function expression(text: string, exchange: Exchange): unknown {
  const found = lookUp(text, exchange);
  if (found === undefined) throw new Error(`the runtime expression ${text} finds nothing in this exchange`);
  return found;
}

function lookUp(text: string, { method, url, request, response }: Exchange): unknown {
  if (text === '$method') return method;
  if (text === '$url') return url;
  if (text === '$statusCode') return response.status;
  const body = /^\$(request|response)\.body(?:#(.*))?$/.exec(text);
  if (body !== null) return pointer((body[1] === 'request' ? request : response).body, body[2] ?? '');
  const header = /^\$(request|response)\.header\.(.+)$/.exec(text);
  if (header !== null) {
    const headers: Readonly<Record<string, unknown>> =
      header[1] === 'request' ? request.headers : response.headers;
    return headers[(header[2] as string).toLowerCase()];
  }
  throw new Error(`unsupported runtime expression ${text}`);
}

/** Resolves a JSON pointer (RFC 6901) in a value; undefined when a step is missing. */
function pointer(root: unknown, path: string): unknown {
  if (path === '') return root;
  if (!path.startsWith('/')) throw new Error(`"${path}" is not a JSON pointer`);
  let node = root;
  for (const raw of path.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
