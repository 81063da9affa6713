import { type Dispatcher, request } from 'undici';
import { afterEach } from 'vitest';
import {
  createMockServer,
  errorCatalogue,
  type MockServer,
  type MockServerOptions,
  validateResponse,
} from '../../src/index.js';
import { serviceDocument } from '../../src/spec/loadDocument.js';
import { route } from '../../src/validate/schemaChecks.js';
import { SchemaRegistry } from '../../src/validate/schemas.js';

export const customerKey = 'dev-customer-key';
export const testingKey = 'dev-testing-key';
export const jsonHeaders = (key = customerKey): Record<string, string> => ({
  authorization: `Token ${key}`,
  'content-type': 'application/json',
});

/**
 * A URL where nothing listens: port 1, below the range the kernel hands out for port 0. A closed server's URL is
 * no such thing: its port is free for the next server any test file starts, which may answer, or hold the request
 * until a timeout.
 */
export const nothingListens = 'http://127.0.0.1:1';

/** An HTTP answer, however it was sent (`call`, `send`, or the raw client in `rawHttp.ts`). */
export interface Answer {
  readonly status: number;
  /** The status line's reason phrase (`Not Found`), when the answer was read from the raw bytes. */
  readonly reason?: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * The body parsed as JSON. When it is not JSON: the text for `call`, undefined for `send` and the raw client.
   */
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers as loosely typed JSON; validateResponse checks their shape
  readonly body: any;
  readonly text: string;
}

/** Sends one request (GET bodies included, with Content-Length) and parses the JSON answer. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; raw?: string | Buffer } = {},
): Promise<Answer> {
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await request(`${baseUrl}${path}`, {
    method: method as 'GET',
    headers: options.headers ?? jsonHeaders(),
    ...(payload === undefined ? {} : { body: payload }),
  });
  const text = await response.body.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the test sees the text
  }
  return { status: response.statusCode, headers: response.headers, body, text };
}

/** A fresh in-memory mock per test: no state is shared between tests. */
export type ApiCall = (method: string, body?: unknown, key?: string) => Promise<Answer>;

/** A fresh in-memory mock per test: no state is shared between tests. `api` calls /api/user with a key. */
export async function startMock(options: MockServerOptions = {}): Promise<MockServer & { api: ApiCall }> {
  const server = await createMockServer({ port: 0, host: '127.0.0.1', ...options });
  const api: ApiCall = (method, body, key) =>
    call(server.url, method, '/api/user', { headers: jsonHeaders(key), body });
  return Object.assign(server, { api });
}

export type Mock = Awaited<ReturnType<typeof startMock>>;

/** A fresh mock per call (127.0.0.1, port 0, in memory unless `db` is given), each closed after its test. */
export function useMocks(): (options?: MockServerOptions) => Promise<Mock> {
  const open: Mock[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((mock) => mock.close()));
  });
  return async (options = {}) => {
    const mock = await startMock(options);
    open.push(mock);
    return mock;
  };
}

export type OperationName = 'getOrCreateUserGroup' | 'updateUserGroup' | 'rotateUserGroupToken';

export const methodOf: Readonly<Record<OperationName, 'GET' | 'PUT' | 'POST'>> = {
  getOrCreateUserGroup: 'GET',
  updateUserGroup: 'PUT',
  rotateUserGroupToken: 'POST',
};

/** A request as bytes and header pairs, so that tests can break any part of it. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer | undefined;
}

export const apiHeaders = (key = customerKey): ReadonlyArray<readonly [string, string]> => [
  ['authorization', `Token ${key}`],
  ['content-type', 'application/json'],
];

/** A well-formed request to an operation of `/api/user`. */
export const apiRequest = (operation: OperationName, body: unknown, key = customerKey): ApiRequest => ({
  method: methodOf[operation],
  path: '/api/user',
  headers: apiHeaders(key),
  body: Buffer.from(JSON.stringify(body), 'utf8'),
});

/** Sends a request through an undici dispatcher (a Pool or Client); transport failures reject. */
export async function send(dispatcher: Dispatcher, request: ApiRequest): Promise<Answer> {
  const response = await dispatcher.request({
    method: request.method as Dispatcher.HttpMethod,
    path: request.path,
    headers: request.headers.flat(),
    ...(request.body === undefined ? {} : { body: request.body }),
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
    // undici closes the connection after a GET that carries a body unless told not to: keep it alive, so that a
    // closed connection always means the server closed it.
    reset: false,
  });
  const text = await response.body.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, headers: response.headers, body, text };
}

type Loose = Readonly<Record<string, unknown>>;
const field = (value: unknown, name: string): unknown =>
  value !== null && typeof value === 'object' ? (value as Loose)[name] : undefined;

/** `user_group` of a success body (empty when absent). */
export const userGroupOf = (answer: Answer): Loose => (field(answer.body, 'user_group') as Loose) ?? {};
/** `new_user_group` of a get-or-create answer. */
export const isNewGroup = (answer: Answer): unknown => field(answer.body, 'new_user_group');
/** `error.code` of an error body. */
export const errorCodeOf = (answer: Answer): unknown => field(field(answer.body, 'error'), 'code');

let registry: SchemaRegistry | undefined;
const errorResponseProblems = (body: unknown): string[] => {
  if (registry === undefined) {
    registry = new SchemaRegistry();
    registry.register('service', serviceDocument());
  }
  return registry
    .check(
      'service',
      '/components/schemas/ErrorResponse',
    )(body)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
};

/**
 * What is wrong with an answer, judged by the document: a status the operation documents is checked with
 * `validateResponse`; any other error (unknown paths, 431 from the HTTP parser) must still be the `ErrorResponse`
 * envelope. Every error's status must be the one the error catalogue gives its code.
 */
export function answerProblems(method: string, path: string, status: number, body: unknown): string[] {
  const found = route(method, path);
  const documented = found.kind === 'operation' && found.operation.responseSchemas.has(String(status));
  const problems = documented
    ? validateResponse({ method, path, status, body }).diagnostics.map((d) => `${d.path} ${d.message}`)
    : errorResponseProblems(body);
  if (status >= 400) {
    const code = (body as { error?: { code?: string } } | undefined)?.error?.code;
    const entry = code === undefined ? undefined : errorCatalogue[code as keyof typeof errorCatalogue];
    if (entry === undefined) problems.push(`error code ${code} is not in the catalogue`);
    else if (entry.status !== status)
      problems.push(`${code} answered ${status}, the catalogue says ${entry.status}`);
  }
  return problems;
}
