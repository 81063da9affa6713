import { expect } from 'vitest';
import { adminRoute, checkAdminSchema } from '../../src/admin/adminDocument.js';
import { type Diagnostic, validateResponse } from '../../src/index.js';
import { type Answer, call, customerKey, type Mock } from './http.js';

export { type Mock, useMocks } from './http.js';

/** How an admin answer breaks openapi/admin.yaml: its operation's schema for the status, or the error envelope. */
export function adminDiagnostics(method: string, path: string, answer: Answer): Diagnostic[] {
  const found = adminRoute(method, path.split('?')[0] as string);
  if (found.kind !== 'operation')
    return checkAdminSchema('/components/schemas/ErrorResponse', answer.body, '/body');
  if (answer.status === 204)
    return answer.body === '' ? [] : [{ code: 'BODY_ON_204', path: '/body', message: 'a 204 has a body' }];
  const schema = found.operation.responseSchemas.get(String(answer.status));
  if (schema === undefined)
    return [
      { code: 'UNDOCUMENTED_STATUS', path: '/status', message: `status ${answer.status} undocumented` },
    ];
  return checkAdminSchema(schema, answer.body, '/body');
}

export interface AdminCallOptions {
  readonly body?: unknown;
  readonly raw?: string;
  /** Sent as `Authorization: Token <key>` (the scope); no Authorization without it. */
  readonly key?: string;
  /** Sent as `X-Admin-Key`. */
  readonly adminKey?: string;
  readonly headers?: Record<string, string>;
}

/** Calls the admin API and checks the answer against openapi/admin.yaml before returning it. */
export async function admin(
  url: string,
  method: string,
  path: string,
  options: AdminCallOptions = {},
): Promise<Answer> {
  const sendsBody = options.body !== undefined || options.raw !== undefined;
  const headers = {
    ...(sendsBody ? { 'content-type': 'application/json' } : {}),
    ...(options.key === undefined ? {} : { authorization: `Token ${options.key}` }),
    ...(options.adminKey === undefined ? {} : { 'x-admin-key': options.adminKey }),
    ...options.headers,
  };
  const answer = await call(url, method, path, {
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.raw === undefined ? {} : { raw: options.raw }),
  });
  expect(adminDiagnostics(method, path, answer), `${method} ${path} ${answer.status}`).toEqual([]);
  return answer;
}

/**
 * Calls /api/user with a key and checks the answer against the service document before returning it. An injected
 * fault's answer (code `INJECTED_FAULT`, any status) is outside the service's contract by design: it is checked
 * against the admin document's envelope instead.
 */
export async function service(mock: Mock, method: string, body: unknown, key = customerKey): Promise<Answer> {
  const answer = await mock.api(method, body, key);
  if (answer.body?.error?.code === 'INJECTED_FAULT') {
    const envelope = checkAdminSchema('/components/schemas/ErrorResponse', answer.body, '/body');
    expect(envelope, `${method} /api/user ${answer.status} (injected)`).toEqual([]);
    return answer;
  }
  const checked = validateResponse({ method, path: '/api/user', status: answer.status, body: answer.body });
  expect(checked.diagnostics, `${method} /api/user ${answer.status}`).toEqual([]);
  return answer;
}

export const hex64 = (c: string): string => c.repeat(64);
