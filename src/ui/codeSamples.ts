import type { OpenAPIV3_1 } from 'openapi-types';
import type { ApiKey } from '../runtime/keyRing.js';
import { type HttpMethod, listOperations } from '../spec/operations.js';

/**
 * What the reference shows of the running server: which it is (the mock, or a validating proxy, whose API keys are
 * its target's), its URL, and the keys to copy (undefined: not shown).
 */
export interface MockFacts {
  readonly server: 'mock' | 'proxy';
  readonly url: string;
  readonly keys: readonly ApiKey[] | undefined;
  /** Whether the keys are the defaults (no `--api-key` given): said, not shown, when `keys` is hidden. */
  readonly defaultKeys: boolean;
  readonly adminKeySet: boolean;
}

export interface CodeSample {
  readonly lang: string;
  readonly label: string;
  readonly source: string;
}

type Media = { examples?: Record<string, { value?: unknown }>; example?: unknown };

/** The first example body of an operation's JSON request body, if it has one. */
function exampleBody(operation: OpenAPIV3_1.OperationObject): unknown {
  const media = (operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content?.[
    'application/json'
  ] as Media | undefined;
  if (media === undefined) return undefined;
  const first = Object.values(media.examples ?? {})[0];
  return first?.value ?? media.example ?? {};
}

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * curl and `undici.request` for one call of the mock, from the document's own example body: the samples the
 * reference shows instead of a "try it" button (a browser cannot send a GET with a body).
 */
function codeSamples(
  method: string,
  path: string,
  headers: Readonly<Record<string, string>>,
  body: unknown,
  facts: MockFacts,
): CodeSample[] {
  const url = `${facts.url}${path.replace(/\{([^}]+)\}/g, '<$1>')}`;
  const withBody = body === undefined ? headers : { ...headers, 'content-type': 'application/json' };
  const text = body === undefined ? undefined : JSON.stringify(body);
  const curl = [
    `curl -sS -X ${method.toUpperCase()} ${shellQuote(url)}`,
    ...Object.entries(withBody).map(([name, value]) => `  -H ${shellQuote(`${headerName(name)}: ${value}`)}`),
    ...(text === undefined ? [] : [`  -d ${shellQuote(text)}`]),
  ].join(' \\\n');
  const headerLines = Object.entries(withBody).map(
    ([name, value]) =>
      `    ${/^[a-z]+$/.test(name) ? name : JSON.stringify(name)}: ${JSON.stringify(value)},`,
  );
  const undici = [
    "import { request } from 'undici';",
    '',
    `const { statusCode, body } = await request(${JSON.stringify(url)}, {`,
    `  method: ${JSON.stringify(method.toUpperCase())},`,
    ...(headerLines.length === 0 ? [] : ['  headers: {', ...headerLines, '  },']),
    ...(text === undefined ? [] : [`  body: JSON.stringify(${text}),`]),
    '});',
    'console.log(statusCode, await body.text());',
  ].join('\n');
  return [
    { lang: 'Shell', label: 'curl', source: curl },
    { lang: 'JavaScript', label: 'undici.request', source: undici },
  ];
}

const headerName = (name: string): string =>
  name.replace(/(^|-)([a-z])/g, (_, dash, c) => dash + c.toUpperCase());

const getWithBodyNote = `> **Browsers cannot send this request.** It is a GET with a JSON body: \`fetch\` and
> \`XMLHttpRequest\` drop or refuse a GET body, so this reference has no "try it" button. Send it with
> \`curl\` or \`undici.request\` (the samples beside), or \`node:http\` with a \`Content-Length\` header.

`;

/**
 * The document as the reference renders it: this server's URL, and for each operation curl and
 * `undici.request` samples (Redoc's `x-codeSamples`) with the keys shown; a GET with a body says that a
 * browser cannot send it.
 */
export function referenceDocument(
  source: OpenAPIV3_1.Document,
  which: 'service' | 'admin',
  facts: MockFacts,
): OpenAPIV3_1.Document {
  const document = structuredClone(source);
  document.servers = [
    { url: facts.url, description: facts.server === 'proxy' ? 'this validating proxy' : 'this mock' },
  ];
  const customerKey =
    facts.keys?.find((k) => k.environment === 'Customer')?.key ?? facts.keys?.[0]?.key ?? '<API_KEY>';
  const headers: Record<string, string> =
    which === 'service'
      ? { authorization: `Token ${customerKey}` }
      : facts.adminKeySet
        ? { 'x-admin-key': '<the --admin-key value>' }
        : {};
  for (const operation of listOperations(document)) {
    const method = operation.method.toLowerCase() as HttpMethod;
    const item = document.paths?.[operation.path]?.[method] as OpenAPIV3_1.OperationObject;
    const samples = codeSamples(method, operation.path, headers, exampleBody(item), facts);
    Object.assign(item, { 'x-codeSamples': samples });
    if (method === 'get' && item.requestBody !== undefined)
      item.description = getWithBodyNote + (item.description ?? '');
  }
  return document;
}
