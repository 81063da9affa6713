import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { validateResponse } from '../../../src/index.js';
import { serviceDocument } from '../../../src/spec/loadDocument.js';
import { type OperationId, operations } from '../../../src/spec/operations.js';
import { call, jsonHeaders, type Mock, useMocks } from '../../support/http.js';
import { type Exchange, evaluate } from './runtimeExpression.js';

/*
 * Stateful testers (Schemathesis, Portman, RESTler-style tools) chain calls through the document's OpenAPI links.
 * Each link is followed here against the mock: the source call is made, the link's runtime expressions, read from
 * the document, are evaluated over it, and the target call made with the result must succeed.
 */

interface DocumentLink {
  readonly source: OperationId;
  readonly status: string;
  readonly name: string;
  readonly link: OpenAPIV3_1.LinkObject;
}

/** Follows a local `$ref` (`#/components/...`) in the service document. */
function resolve<T>(node: T | OpenAPIV3_1.ReferenceObject): T {
  const ref = (node as OpenAPIV3_1.ReferenceObject).$ref;
  if (ref === undefined) return node as T;
  let found: unknown = serviceDocument();
  for (const key of ref.replace(/^#\//, '').split('/')) found = (found as Record<string, unknown>)[key];
  if (found === undefined) throw new Error(`unresolved ${ref}`);
  return resolve(found as T);
}

/** Every link of every response of the service document, `$ref`s resolved. */
function documentLinks(): DocumentLink[] {
  const paths = serviceDocument().paths ?? {};
  return operations().flatMap((operation) => {
    const method = operation.method.toLowerCase() as OpenAPIV3_1.HttpMethods;
    const responses = paths[operation.path]?.[method]?.responses ?? {};
    return Object.entries(responses).flatMap(([status, response]) =>
      Object.entries(resolve<OpenAPIV3_1.ResponseObject>(response).links ?? {}).map(([name, link]) => ({
        source: operation.operationId as OperationId,
        status,
        name,
        link: resolve<OpenAPIV3_1.LinkObject>(link),
      })),
    );
  });
}

const start = useMocks();
const group = { name: 'Customer A', user_group_id: 'customer-a' };

/** Calls an operation by its id, requires a 200 the document accepts, and returns the exchange. */
async function send(mock: Mock, operationId: string, body: unknown): Promise<Exchange> {
  const operation = operations().find((o) => o.operationId === operationId);
  if (operation === undefined) throw new Error(`no operation ${operationId} in the service document`);
  const headers = jsonHeaders();
  const answer = await call(mock.url, operation.method, operation.path, { headers, body });
  const what = `${operationId} with ${JSON.stringify(body)}`;
  expect(answer.status, `${what} answered ${JSON.stringify(answer.body)}`).toBe(200);
  const { method, path } = operation;
  const checked = validateResponse({ method, path, status: answer.status, body: answer.body });
  expect(checked.diagnostics, what).toEqual([]);
  return {
    method: operation.method,
    url: `${mock.url}${operation.path}`,
    request: { headers, body },
    response: { status: answer.status, headers: answer.headers, body: answer.body },
  };
}

/** A successful call of each operation on a fresh mock, the group created first where the call needs one. */
const sourceCalls: Record<OperationId, (mock: Mock) => Promise<Exchange>> = {
  getOrCreateUserGroup: (mock) => send(mock, 'getOrCreateUserGroup', group),
  updateUserGroup: async (mock) => {
    await send(mock, 'getOrCreateUserGroup', group);
    return send(mock, 'updateUserGroup', {
      user_group_id: group.user_group_id,
      properties: { region: 'EU' },
    });
  },
  rotateUserGroupToken: async (mock) => {
    const created = await send(mock, 'getOrCreateUserGroup', group);
    const { token } = (created.response.body as { user_group: { token: string } }).user_group;
    return send(mock, 'rotateUserGroupToken', { current_token: token });
  },
};

const links = documentLinks();
const flowOf = (l: DocumentLink) => ({ from: l.source, to: l.link.operationId, body: l.link.requestBody });

describe('the links of the service document', () => {
  it('say that a token answered feeds the next rotation and that the group id feeds an update', () => {
    const token = { current_token: '$response.body#/user_group/token' };
    const flows = links.map(flowOf);
    expect(flows).toContainEqual({ from: 'getOrCreateUserGroup', to: 'rotateUserGroupToken', body: token });
    expect(flows).toContainEqual({ from: 'rotateUserGroupToken', to: 'rotateUserGroupToken', body: token });
    const updates = flows.filter((f) => f.from === 'getOrCreateUserGroup' && f.to === 'updateUserGroup');
    expect(updates.map((f) => (f.body as { user_group_id?: unknown }).user_group_id)).toEqual([
      '$request.body#/user_group_id',
    ]);
  });

  it('name their target by operationId and fill only its body (the operations take no parameters)', () => {
    const ids = operations().map((o) => o.operationId);
    for (const { link } of links) {
      expect(ids).toContain(link.operationId);
      expect(link.parameters).toBeUndefined();
      expect(link.requestBody).toBeDefined();
    }
  });

  it.each(links.map((l) => [`${l.source} ${l.status} ${l.name} to ${l.link.operationId}`, l] as const))(
    'lead from %s with a call the mock accepts',
    async (_name, { source, link }) => {
      const mock = await start();
      const from = await sourceCalls[source](mock);
      const to = await send(mock, link.operationId as string, evaluate(link.requestBody, from));
      expect(to.response.status).toBe(200);
    },
  );
});
