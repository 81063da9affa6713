import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createUserGroupClient,
  isUserGroupServiceError,
  type UserGroupServiceError,
} from '../../../src/index.js';
import { customerKey, startMock } from '../../support/http.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A plain HTTP server that answers every request with `reply`, recording what it received. */
async function fakeServer(reply: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: { method?: string; url?: string; headers: IncomingMessage['headers'] }[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers });
    req.resume().on('end', () => reply(req, res));
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const rejection = (promise: Promise<unknown>): Promise<UserGroupServiceError> =>
  promise.then(
    () => Promise.reject(new Error('the call succeeded')),
    (error: unknown) => (isUserGroupServiceError(error) ? error : Promise.reject(error)),
  );

describe('createUserGroupClient', () => {
  it('sends the get-or-create body on a GET with its Content-Length, and the API key as Token', async () => {
    const mock = await startMock();
    closers.push(() => mock.close());
    const client = createUserGroupClient({ baseUrl: `${mock.url}/`, apiKey: customerKey });
    const answer = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
    expect(answer).toMatchObject({ new_user_group: true, user_group: { provided_id: 'customer-a' } });
    const [entry] = await mock.requests();
    expect(entry).toMatchObject({ method: 'GET', status: 200, keyEnvironment: 'Customer', diagnostics: [] });
  });

  it('rotates with a bare token, and the old token then answers TOKEN_NOT_FOUND with diagnostics', async () => {
    const mock = await startMock();
    closers.push(() => mock.close());
    const client = createUserGroupClient({ baseUrl: mock.url, apiKey: customerKey });
    const { user_group } = await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
    const rotated = await client.rotateToken(user_group.token);
    expect(rotated.user_group.token).not.toBe(user_group.token);
    const error = await rejection(client.rotateToken({ current_token: user_group.token }));
    expect([error.status, error.code, error.diagnostics[0]?.path]).toEqual([
      404,
      'TOKEN_NOT_FOUND',
      '/body/current_token',
    ]);
  });

  it('keeps a path prefix of the base URL and sends JSON with a Content-Length', async () => {
    const fake = await fakeServer((_req, res) => res.end('{"success":1,"user_group":{}}'));
    const client = createUserGroupClient({ baseUrl: `${fake.url}/proxy/`, apiKey: 'k' });
    await client.update({ user_group_id: 'a', name: 'b' });
    expect(fake.seen[0]).toMatchObject({ method: 'PUT', url: '/proxy/api/user' });
    expect(fake.seen[0]?.headers).toMatchObject({
      authorization: 'Token k',
      'content-type': 'application/json',
      'content-length': String(JSON.stringify({ user_group_id: 'a', name: 'b' }).length),
    });
  });

  it('rejects with UNEXPECTED_RESPONSE when the answer is not the error envelope', async () => {
    const fake = await fakeServer((_req, res) => res.writeHead(502).end('<html>Bad gateway</html>'));
    const client = createUserGroupClient({ baseUrl: fake.url, apiKey: 'k' });
    const error = await rejection(client.getOrCreate({ name: 'A', user_group_id: 'a' }));
    expect([error.status, error.code]).toEqual([502, 'UNEXPECTED_RESPONSE']);
    expect(error.message).toContain('Bad gateway');
  });

  it('rejects with NETWORK_ERROR and status 0 when nothing answers', async () => {
    const fake = await fakeServer((_req, res) => res.end());
    await Promise.all(closers.splice(0).map((close) => close()));
    const client = createUserGroupClient({ baseUrl: fake.url, apiKey: 'k' });
    const error = await rejection(client.getOrCreate({ name: 'A', user_group_id: 'a' }));
    expect([error.status, error.code, error.name]).toEqual([0, 'NETWORK_ERROR', 'UserGroupServiceError']);
  });
});
