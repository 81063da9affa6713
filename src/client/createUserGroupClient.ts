import { type Dispatcher, request } from 'undici';
import { type Operation, type OperationId, operations } from '../spec/operations.js';
import type { ErrorResponse, RequestBodies, SuccessBodies } from '../spec/types.js';
import { UserGroupServiceError } from './UserGroupServiceError.js';

export interface UserGroupClientOptions {
  /** Where the service runs, e.g. `http://127.0.0.1:4010`; a path prefix (a proxy's `/svc`) is kept. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Token <apiKey>`. The key decides the environment (`Customer` or `Testing`). */
  readonly apiKey: string;
  /** Milliseconds to wait for the answer's headers and body (default 10 s). */
  readonly timeoutMs?: number;
  /** An undici dispatcher (Agent, Pool, MockAgent) for connection reuse or tests. */
  readonly dispatcher?: Dispatcher;
}

/** The three operations of the User Group Service. Each resolves with the success body or rejects with a `UserGroupServiceError`. */
export interface UserGroupClient {
  /** Returns the group with this `user_group_id`, creating it when it does not exist (`new_user_group`). */
  getOrCreate(body: RequestBodies['getOrCreateUserGroup']): Promise<SuccessBodies['getOrCreateUserGroup']>;
  /** Updates `name`, `mapping` and/or `properties` of an existing group; 404 `GROUP_NOT_FOUND` when unknown. */
  update(body: RequestBodies['updateUserGroup']): Promise<SuccessBodies['updateUserGroup']>;
  /** Replaces the group's token; the old one stops working. Give the current token or the whole body. */
  rotateToken(
    current: string | RequestBodies['rotateUserGroupToken'],
  ): Promise<SuccessBodies['rotateUserGroupToken']>;
}

/**
 * The reference client: a working example of calling the service correctly. It sends the GET body of
 * get-or-create with a Content-Length (which `fetch` cannot do) and turns every error envelope into a typed error.
 *
 * ```ts
 * const client = createUserGroupClient({ baseUrl: 'http://127.0.0.1:4010', apiKey: 'dev-customer-key' });
 * const { user_group } = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
 * ```
 */
export function createUserGroupClient(options: UserGroupClientOptions): UserGroupClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeout = options.timeoutMs ?? 10_000;

  async function call<K extends OperationId>(
    operationId: K,
    body: RequestBodies[K],
  ): Promise<SuccessBodies[K]> {
    const operation = operations().find((o) => o.operationId === operationId) as Operation;
    const payload = JSON.stringify(body);
    let status = 0;
    let text: string;
    try {
      const response = await request(`${base}${operation.path}`, {
        method: operation.method as Dispatcher.HttpMethod,
        headers: {
          authorization: `Token ${options.apiKey}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
        },
        body: payload,
        // undici closes the connection after a GET that carries a body unless told the server handles it.
        reset: false,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new UserGroupServiceError(
        status,
        'NETWORK_ERROR',
        `${operation.method} ${base}${operation.path} failed before an answer arrived (${reason}); check baseUrl and that the service is running`,
        [],
        { cause: error },
      );
    }
    return readAnswer(status, text, `${operation.method} ${operation.path}`) as SuccessBodies[K];
  }

  return {
    getOrCreate: (body) => call('getOrCreateUserGroup', body),
    update: (body) => call('updateUserGroup', body),
    rotateToken: (current) =>
      call('rotateUserGroupToken', typeof current === 'string' ? { current_token: current } : current),
  };
}

/** A 2xx JSON answer is the result; an error envelope becomes a `UserGroupServiceError`. */
function readAnswer(status: number, text: string, call: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (status >= 200 && status < 300 && body !== null && typeof body === 'object') return body;
  const error = (body as Partial<ErrorResponse> | undefined)?.error;
  if (error !== undefined && typeof error.code === 'string' && typeof error.message === 'string') {
    const details = Array.isArray(error.details) ? error.details : [];
    throw new UserGroupServiceError(status, error.code, error.message, details);
  }
  throw new UserGroupServiceError(
    status,
    'UNEXPECTED_RESPONSE',
    `${call} answered ${status} with a body that is not the service's JSON (${text.slice(0, 200)}); check baseUrl`,
  );
}
