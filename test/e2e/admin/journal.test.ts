import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { validateResponse } from '../../../src/index.js';
import { admin, type Mock, service, useMocks } from '../../support/admin.js';
import { call, customerKey, testingKey } from '../../support/http.js';

const start = useMocks();

/** Sends a raw request to the service; an answer of /api/user is checked against the service document. */
async function raw(mock: Mock, method: string, path: string, headers: Record<string, string>, text: string) {
  const answer = await call(mock.url, method, path, { headers, raw: text });
  if (path === '/api/user') {
    const checked = validateResponse({ method, path, status: answer.status, body: answer.body });
    expect(checked.diagnostics).toEqual([]);
  }
  return answer;
}

/** A valid get-or-create, an invalid one (typo), a valid update and a malformed JSON body. */
async function traffic(mock: Mock): Promise<void> {
  await service(mock, 'GET', { user_group_id: 'a', name: 'A' });
  await service(mock, 'GET', { name: 'A', userGroupId: 'a' }, testingKey);
  await service(mock, 'PUT', { user_group_id: 'a', name: 'B' });
  const headers = { authorization: `Token ${customerKey}`, 'content-type': 'application/json' };
  await raw(mock, 'POST', '/api/user', headers, '{"current_token": ');
}

describe('GET /__admin/requests (the journal)', () => {
  it('records every call, newest last, with what was sent and answered', async () => {
    const mock = await start();
    await traffic(mock);
    const journal = await admin(mock.url, 'GET', '/__admin/requests');
    expect(
      journal.body.map((e: { operationId: string; status: number }) => [e.operationId, e.status]),
    ).toEqual([
      ['getOrCreateUserGroup', 200],
      ['getOrCreateUserGroup', 400],
      ['updateUserGroup', 200],
      ['rotateUserGroupToken', 400],
    ]);
    const [first] = journal.body;
    expect(first).toMatchObject({
      id: 1,
      method: 'GET',
      path: '/api/user',
      keyEnvironment: 'Customer',
      requestBody: { user_group_id: 'a', name: 'A' },
      responseBody: { success: 1, new_user_group: true },
      diagnostics: [],
    });
    expect(journal.body[1].keyEnvironment).toBe('Testing');
    expect(journal.body[3].requestBody).toBe('{"current_token": ');
  });

  it('records invalid requests with their diagnostics, and invalid=true lists only those', async () => {
    const mock = await start();
    await traffic(mock);
    const invalid = await admin(mock.url, 'GET', '/__admin/requests?invalid=true');
    expect(invalid.body).toHaveLength(2);
    expect(invalid.body[0].diagnostics).toEqual([
      expect.objectContaining({ code: 'UNKNOWN_FIELD', path: '/body/userGroupId' }),
      expect.objectContaining({ code: 'MISSING_FIELD', path: '/body/user_group_id' }),
    ]);
    expect(invalid.body[0].diagnostics[0].message).toContain('did you mean "user_group_id"?');
    expect(invalid.body[1].diagnostics).toEqual([expect.objectContaining({ code: 'BODY_INVALID_JSON' })]);
    expect(await mock.requests({ invalid: true })).toEqual(invalid.body);
  });

  it('records the mistakes a client makes before the body: wrong path, Bearer, no Content-Type', async () => {
    const mock = await start();
    const body = JSON.stringify({ user_group_id: 'a', name: 'A' });
    const token = `Token ${customerKey}`;
    await raw(mock, 'GET', '/api/user/', { authorization: token, 'content-type': 'application/json' }, body);
    await raw(mock, 'GET', '/api/user', { authorization: `Bearer ${customerKey}` }, body);
    await raw(mock, 'GET', '/api/user', { authorization: token }, body);
    const invalid = await admin(mock.url, 'GET', '/__admin/requests?invalid=true');
    expect(invalid.body.map((e: { diagnostics: { code: string }[] }) => e.diagnostics[0]?.code)).toEqual([
      'ROUTE_NOT_FOUND',
      'AUTH_BEARER',
      'UNSUPPORTED_MEDIA_TYPE',
    ]);
  });

  it.each([
    ['operationId=updateUserGroup', ['updateUserGroup']],
    ['limit=2', ['updateUserGroup', 'rotateUserGroupToken']],
    ['operationId=getOrCreateUserGroup&limit=1', ['getOrCreateUserGroup']],
    ['operationId=getOrCreateUserGroup&invalid=true', ['getOrCreateUserGroup']],
    [
      'invalid=false',
      ['getOrCreateUserGroup', 'getOrCreateUserGroup', 'updateUserGroup', 'rotateUserGroupToken'],
    ],
  ])('filters with ?%s', async (query, operationIds) => {
    const mock = await start();
    await traffic(mock);
    const journal = await admin(mock.url, 'GET', `/__admin/requests?${query}`);
    expect(journal.body.map((e: { operationId: string }) => e.operationId)).toEqual(operationIds);
  });

  it('never records the raw API key, only its environment', async () => {
    const mock = await start();
    await traffic(mock);
    const text = JSON.stringify((await admin(mock.url, 'GET', '/__admin/requests')).body);
    expect(text).not.toContain(customerKey);
    expect(text).not.toContain(testingKey);
    expect(text).toContain('"keyEnvironment":"Customer"');
  });

  it('does not journal admin calls', async () => {
    const mock = await start();
    await admin(mock.url, 'GET', '/__admin/groups');
    await admin(mock.url, 'GET', '/__admin/groups?environment=Nowhere');
    expect((await admin(mock.url, 'GET', '/__admin/requests')).body).toEqual([]);
  });

  it('answers a browser asking for /favicon.ico with 204 and does not journal it, nor /embed', async () => {
    const mock = await start();
    const icon = await call(mock.url, 'GET', '/favicon.ico', { headers: {} });
    expect(icon.status).toBe(204);
    expect((await call(mock.url, 'GET', '/embed', { headers: {} })).status).toBe(404);
    expect((await admin(mock.url, 'GET', '/__admin/requests')).body).toEqual([]);
  });

  it('empties on DELETE /__admin/requests, and keeps numbering after', async () => {
    const mock = await start();
    await traffic(mock);
    expect((await admin(mock.url, 'DELETE', '/__admin/requests')).status).toBe(204);
    expect((await admin(mock.url, 'GET', '/__admin/requests')).body).toEqual([]);
    await service(mock, 'GET', { user_group_id: 'z', name: 'Z' });
    const [entry] = (await admin(mock.url, 'GET', '/__admin/requests')).body;
    expect(entry.id).toBe(5);
  });

  it('records how long each answer took, a planned delay included', async () => {
    const mock = await start();
    await admin(mock.url, 'POST', '/__admin/faults', { body: { delay_ms: 150 } });
    await service(mock, 'GET', { user_group_id: 'slow', name: 'Slow' });
    await service(mock, 'GET', { user_group_id: 'quick', name: 'Quick' });
    const [slow, quick] = (await admin(mock.url, 'GET', '/__admin/requests')).body;
    expect(slow.durationMs).toBeGreaterThanOrEqual(150);
    expect(quick.durationMs).toBeGreaterThanOrEqual(0);
    expect(quick.durationMs).toBeLessThan(slow.durationMs);
  });
});

describe('what the client sent, in the journal of every request', () => {
  const body = { user_group_id: 'a', name: 'A' };
  const headerOf = (entry: { requestHeaders: { name: string; value: string }[] }, name: string) =>
    entry.requestHeaders.filter((h) => h.name.toLowerCase() === name).map((h) => h.value);

  it('keeps the headers and body of requests refused before their body was read (401, 415, 404), the key hidden', async () => {
    const mock = await start();
    const token = `Token ${customerKey}`;
    await raw(mock, 'GET', '/api/user', { authorization: `Bearer ${customerKey}` }, JSON.stringify(body));
    await raw(mock, 'GET', '/api/user', { authorization: token, 'content-type': 'text/plain' }, 'name=A');
    await raw(
      mock,
      'GET',
      '/api/users',
      { authorization: token, 'content-type': 'application/json' },
      '{"a":1}',
    );
    await service(mock, 'GET', body);
    await raw(mock, 'GET', '/api/user', { authorization: 'Token no-such-key' }, '');
    const journal = (await admin(mock.url, 'GET', '/__admin/requests')).body;
    expect(journal.map((e: { status: number }) => e.status)).toEqual([401, 415, 404, 200, 401]);
    const [bearer, plain, wrongPath, valid, unknown] = journal;
    expect(headerOf(unknown, 'authorization')).toEqual(['Token ‹11 characters: matches no API key›']);
    expect(unknown.requestBody).toBeNull();
    expect(bearer.requestBody).toEqual(body);
    // The key is the Customer key, refused for its scheme: the entry says which key it was, never the key.
    expect(headerOf(bearer, 'authorization')).toEqual([
      'Bearer ‹16 characters: the Customer key of tenant "default"›',
    ]);
    expect(plain.requestBody).toBe('name=A');
    expect(headerOf(plain, 'content-type')).toEqual(['text/plain']);
    expect(headerOf(plain, 'authorization')).toEqual([
      'Token ‹16 characters: the Customer key of tenant "default"›',
    ]);
    expect(wrongPath.requestBody).toEqual({ a: 1 });
    expect(valid.requestBody).toEqual(body);
    expect(headerOf(valid, 'content-length')).toEqual([String(JSON.stringify(body).length)]);
    for (const entry of journal) expect(entry.requestBodyNotKept).toBeNull();
    expect(JSON.stringify(journal)).not.toContain(customerKey);
    expect(await mock.requests()).toEqual(journal);
  });

  it('names the tenant a key matched, and hides the values of other secret headers', async () => {
    const mock = await start();
    const tenant = await mock.createTenant();
    const key = tenant.api_keys.Testing;
    await call(mock.url, 'GET', '/api/user', {
      headers: {
        authorization: `Token ${key}`,
        'content-type': 'application/json',
        cookie: 'session=abc',
        'x-api-key': key,
      },
      body,
    });
    const [entry] = await mock.requests({}, tenant.id);
    expect(headerOf(entry as never, 'authorization')).toEqual([
      `Token ‹${key.length} characters: the Testing key of tenant "${tenant.id}"›`,
    ]);
    expect(headerOf(entry as never, 'cookie')).toEqual(['‹11 characters, hidden›']);
    expect(headerOf(entry as never, 'x-api-key')).toEqual([`‹${key.length} characters, hidden›`]);
    expect(JSON.stringify(entry)).not.toContain(key);
  });

  it('says why a body is not kept: over the body limit (not read), or compressed', async () => {
    const mock = await start({ bodyLimit: 64 });
    const headers = { authorization: `Token ${customerKey}`, 'content-type': 'application/json' };
    const large = JSON.stringify({ ...body, name: 'A'.repeat(100) });
    expect((await call(mock.url, 'GET', '/api/user', { headers, raw: large })).status).toBe(413);
    const gzip = { ...headers, 'content-encoding': 'gzip' };
    expect((await call(mock.url, 'GET', '/api/user', { headers: gzip, raw: gzipSync('{}') })).status).toBe(
      415,
    );
    const [tooLarge, compressed] = await mock.requests();
    expect(tooLarge?.requestBody).toBeNull();
    expect(tooLarge?.requestBodyNotKept).toBe(
      `not read: its Content-Length (${large.length} bytes) is over the body limit of 64 bytes`,
    );
    expect(compressed?.requestBody).toBeNull();
    expect(compressed?.requestBodyNotKept).toMatch(
      /^not kept: it came compressed \(Content-Encoding: gzip, 22 bytes\)/,
    );
  });
});

describe('the journal of the key a request carries', () => {
  const body = JSON.stringify({ user_group_id: 'a', name: 'A' });

  it.each([
    ['GET', '/api/user/', 404],
    ['GET', '/api/users', 404],
    ['DELETE', '/api/user', 405],
  ])(
    'journals %s %s (%i) with a tenant key in that tenant, not the default',
    async (method, path, status) => {
      const mock = await start();
      const tenant = await mock.createTenant();
      const headers = {
        authorization: `Token ${tenant.api_keys.Testing}`,
        'content-type': 'application/json',
      };
      expect((await call(mock.url, method, path, { headers: headers, raw: body })).status).toBe(status);
      const invalid = await mock.requests({ invalid: true }, tenant.id);
      expect(invalid.map((e) => [e.method, e.path, e.status, e.keyEnvironment])).toEqual([
        [method, path, status, 'Testing'],
      ]);
      expect(await mock.requests()).toEqual([]);
      const overHttp = await admin(mock.url, 'GET', '/__admin/requests?invalid=true', {
        key: tenant.api_keys.Customer,
      });
      expect(overHttp.body).toHaveLength(1);
    },
  );

  it('journals a wrong path with no key or an unknown key in the default journal', async () => {
    const mock = await start();
    const tenant = await mock.createTenant();
    await call(mock.url, 'GET', '/api/users', { headers: { 'content-type': 'application/json' }, raw: body });
    await call(mock.url, 'GET', '/api/users', { headers: { authorization: 'Token no-such-key' }, raw: body });
    expect((await mock.requests()).map((e) => [e.path, e.status, e.keyEnvironment])).toEqual([
      ['/api/users', 404, null],
      ['/api/users', 404, null],
    ]);
    expect(await mock.requests({}, tenant.id)).toEqual([]);
  });
});

describe('journalLimit and the entries dropped', () => {
  it('keeps the newest journalLimit entries and counts the dropped ones until reset or clear', async () => {
    const mock = await start({ journalLimit: 3 });
    for (const id of ['a', 'b', 'c', 'd', 'e']) await service(mock, 'GET', { user_group_id: id, name: id });
    expect(
      (await mock.requests()).map((e) => (e.requestBody as { user_group_id: string }).user_group_id),
    ).toEqual(['c', 'd', 'e']);
    expect(await mock.droppedRequests()).toBe(2);
    const listed = await admin(mock.url, 'GET', '/__admin/requests?invalid=true');
    expect([listed.body, listed.headers['x-journal-dropped']]).toEqual([[], '2']);
    await mock.clearRequests();
    expect(await mock.droppedRequests()).toBe(0);
    for (const id of ['f', 'g', 'h', 'i']) await service(mock, 'GET', { user_group_id: id, name: id });
    expect(await mock.droppedRequests()).toBe(1);
    await mock.reset();
    expect((await admin(mock.url, 'GET', '/__admin/requests')).headers['x-journal-dropped']).toBe('0');
  });

  it('counts the drops of each tenant in its own scope', async () => {
    const mock = await start({ journalLimit: 1 });
    const tenant = await mock.createTenant();
    for (const id of ['a', 'b', 'c'])
      await service(mock, 'GET', { user_group_id: id, name: id }, tenant.api_keys.Customer);
    expect([await mock.droppedRequests(tenant.id), await mock.droppedRequests()]).toEqual([2, 0]);
    const listed = await admin(mock.url, 'GET', '/__admin/requests', { key: tenant.api_keys.Testing });
    expect(listed.headers['x-journal-dropped']).toBe('2');
  });

  it.each([0, -1, 1.5, 100_001])(
    'refuses journalLimit %s, naming the option, its flag and the range',
    async (limit) => {
      await expect(start({ journalLimit: limit })).rejects.toThrow(
        /the journalLimit option \(--journal-limit\) must be an integer from 1 to 100000/,
      );
    },
  );
});
