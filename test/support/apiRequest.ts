import type { Dispatcher } from 'undici';
import { customerKey } from './http.js';

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

export interface ApiAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body (undefined when the body is not JSON); read it with the accessors below. */
  readonly body: unknown;
  readonly text: string;
}

/** Sends a request through an undici dispatcher (a Pool or Client); transport failures reject. */
export async function send(dispatcher: Dispatcher, request: ApiRequest): Promise<ApiAnswer> {
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
export const userGroupOf = (answer: ApiAnswer): Loose => (field(answer.body, 'user_group') as Loose) ?? {};
/** `new_user_group` of a get-or-create answer. */
export const isNewGroup = (answer: ApiAnswer): unknown => field(answer.body, 'new_user_group');
/** `error.code` of an error body. */
export const errorCodeOf = (answer: ApiAnswer): unknown => field(field(answer.body, 'error'), 'code');
