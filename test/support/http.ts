import { request } from 'undici';
import { afterEach } from 'vitest';
import { createMockServer, type MockServer, type MockServerOptions } from '../../src/index.js';

export const customerKey = 'dev-customer-key';
export const testingKey = 'dev-testing-key';
export const jsonHeaders = (key = customerKey): Record<string, string> => ({
  authorization: `Token ${key}`,
  'content-type': 'application/json',
});

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers as loosely typed JSON; validateResponse checks their shape
  readonly body: any;
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
  return { status: response.statusCode, headers: response.headers, body };
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
