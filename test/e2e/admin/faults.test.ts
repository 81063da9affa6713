import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { MockControlError } from '../../../src/index.js';
import { admin, type Mock, service, useMocks } from '../../support/admin.js';
import { customerKey, jsonHeaders, testingKey } from '../../support/http.js';

const start = useMocks();

const getOrCreate = (mock: Mock, id = 'a', key = customerKey) =>
  service(mock, 'GET', { user_group_id: id, name: 'A' }, key);

const inject = async (mock: Mock, body: Record<string, unknown>) => {
  const planned = await admin(mock.url, 'POST', '/__admin/faults', { body });
  expect(planned.status).toBe(201);
  return planned.body;
};

describe('injected faults', () => {
  it.each([500, 503, 429])('answers status %i with the envelope and code INJECTED_FAULT', async (status) => {
    const mock = await start();
    await inject(mock, { status });
    const faulted = await getOrCreate(mock);
    expect(faulted.status).toBe(status);
    expect(faulted.body).toMatchObject({ success: 0, error: { code: 'INJECTED_FAULT', details: [] } });
    expect(faulted.body.error.message).toContain('planned with injectFault (POST /__admin/faults)');
    // A 429 and a 503 say when to retry, as the contract's TooManyRequests and Unavailable answers do.
    expect(faulted.headers['retry-after']).toBe(status === 500 ? undefined : '1');
    expect(await mock.groups()).toEqual([]);
    expect((await getOrCreate(mock)).status).toBe(200);
  });

  it('applies to the next `times` matching calls, counting down, then to none', async () => {
    const mock = await start();
    const planned = await inject(mock, { status: 500, times: 2 });
    expect(planned).toEqual({
      id: 1,
      operationId: null,
      status: 500,
      delay_ms: 0,
      action: null,
      remaining: 2,
    });
    expect((await getOrCreate(mock)).status).toBe(500);
    expect((await admin(mock.url, 'GET', '/__admin/faults')).body).toEqual([{ ...planned, remaining: 1 }]);
    expect((await getOrCreate(mock)).status).toBe(500);
    expect((await admin(mock.url, 'GET', '/__admin/faults')).body).toEqual([]);
    expect((await getOrCreate(mock)).status).toBe(200);
  });

  it('applies only to the named operation', async () => {
    const mock = await start();
    await inject(mock, { operationId: 'updateUserGroup', status: 503 });
    expect((await getOrCreate(mock)).status).toBe(200);
    expect((await service(mock, 'PUT', { user_group_id: 'a', name: 'B' })).status).toBe(503);
    expect((await service(mock, 'PUT', { user_group_id: 'a', name: 'B' })).status).toBe(200);
  });

  it('leaves calls that never reach the rules (invalid body) to their own answer, fault still pending', async () => {
    const mock = await start();
    await inject(mock, { status: 503 });
    expect((await service(mock, 'GET', { name: 'A' })).status).toBe(400);
    expect((await admin(mock.url, 'GET', '/__admin/faults')).body).toHaveLength(1);
  });

  it('delays the answer by delay_ms and then serves it normally', async () => {
    const mock = await start();
    await inject(mock, { delay_ms: 300 });
    const started = performance.now();
    const slow = await getOrCreate(mock);
    const elapsed = performance.now() - started;
    expect(slow.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(300);
    expect(slow.body.new_user_group).toBe(true);
    expect((await admin(mock.url, 'GET', '/__admin/faults')).body).toEqual([]);
  });

  it('delays, then answers the status, when both are given', async () => {
    const mock = await start();
    await inject(mock, { delay_ms: 200, status: 502 });
    const started = performance.now();
    expect((await getOrCreate(mock)).status).toBe(502);
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('destroys the connection without an answer for action reset-connection, and journals status 0', async () => {
    const mock = await start();
    await inject(mock, { action: 'reset-connection', operationId: 'getOrCreateUserGroup' });
    await expect(mock.api('GET', { user_group_id: 'a', name: 'A' })).rejects.toThrow();
    expect((await mock.requests()).map((e) => e.status)).toEqual([0]);
    // Told apart from a client that went away, which is journaled with status 0 too.
    expect((await mock.requests())[0]?.warnings).toEqual([
      {
        code: 'INJECTED_FAULT',
        path: '/status',
        message:
          'fault 1, planned with injectFault (POST /__admin/faults), closed the connection without an answer (reset-connection)',
      },
    ]);
    expect((await getOrCreate(mock)).status).toBe(200);
  });

  it('plans the same faults in-process and rejects an invalid spec there with a MockControlError', async () => {
    const mock = await start();
    const fault = await mock.injectFault({ operationId: 'getOrCreateUserGroup', status: 503 });
    expect(fault).toMatchObject({ operationId: 'getOrCreateUserGroup', status: 503, remaining: 1 });
    expect((await getOrCreate(mock)).status).toBe(503);
    const low = mock.injectFault({ status: 200 });
    await expect(low).rejects.toBeInstanceOf(MockControlError);
    await expect(low).rejects.toMatchObject({ code: 'VALIDATION_FAILED', control: 'injectFault' });
    await expect(low).rejects.toThrow(/^user-group-mock: injectFault: .*status must be >= 400/);
    const empty: MockControlError = await mock.injectFault({}).then(
      () => expect.fail('an empty fault spec was planned'),
      (error: MockControlError) => error,
    );
    expect(empty.details.map((d) => d.message).join(' ')).toMatch(
      /at least one of "status", "delay_ms", "action"/,
    );
    expect(await mock.faults()).toEqual([]);
  });

  it('rejects a misspelt operation id in-process, naming the operation meant', async () => {
    const mock = await start();
    const tenant = await mock.createTenant();
    await expect(tenant.injectFault({ operationId: 'updateUserGoup' as 'updateUserGroup' })).rejects.toThrow(
      'injectFault: operationId "updateUserGoup" is no operation; did you mean "updateUserGroup"?',
    );
    expect(await tenant.faults()).toEqual([]);
  });

  it('empties the pending faults on DELETE /__admin/faults', async () => {
    const mock = await start();
    await inject(mock, { status: 500 });
    expect((await admin(mock.url, 'DELETE', '/__admin/faults')).status).toBe(204);
    expect((await getOrCreate(mock)).status).toBe(200);
  });
});

describe('--rate-limit N/min', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a key exceeds N calls in a minute', async () => {
    const mock = await start({ rateLimit: 3 });
    for (const id of ['a', 'b', 'c']) expect((await getOrCreate(mock, id)).status).toBe(200);
    const limited = await getOrCreate(mock, 'd');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await mock.groups()).map((g) => g.provided_id)).toEqual(['a', 'b', 'c']);
  });

  it('counts each API key separately', async () => {
    const mock = await start({ rateLimit: 1 });
    expect((await getOrCreate(mock, 'a', customerKey)).status).toBe(200);
    expect((await getOrCreate(mock, 'b', customerKey)).status).toBe(429);
    expect((await getOrCreate(mock, 'c', testingKey)).status).toBe(200);
  });

  it('does not limit admin calls', async () => {
    const mock = await start({ rateLimit: 1 });
    for (let i = 0; i < 3; i++) expect((await admin(mock.url, 'GET', '/__admin/groups')).status).toBe(200);
  });
});

/** Waits (bounded) until the planned faults of the scope are taken: the request is then waiting on its delay. */
async function untilTaken(mock: Mock, tenant?: string): Promise<void> {
  for (let i = 0; i < 500 && (await mock.faults(tenant)).length > 0; i++)
    await new Promise((resolve) => setTimeout(resolve, 5));
  expect(await mock.faults(tenant)).toEqual([]);
}

/** Waits (bounded) until the scope's journal holds `count` entries. */
async function untilJournaled(mock: Mock, count: number): Promise<void> {
  for (let i = 0; i < 500 && (await mock.requests()).length < count; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('requests waiting on a planned delay', () => {
  it('end without an answer on reset, and neither create their group nor journal themselves', async () => {
    const mock = await start();
    await inject(mock, { delay_ms: 2_000 });
    const abandoned = getOrCreate(mock, 'late');
    await untilTaken(mock);
    await mock.reset();
    await expect(abandoned).rejects.toThrow();
    expect([await mock.groups(), await mock.requests()]).toEqual([[], []]);
    expect((await getOrCreate(mock, 'next')).status).toBe(200);
    expect(
      (await mock.requests()).map((e) => (e.requestBody as { user_group_id: string }).user_group_id),
    ).toEqual(['next']);
  });

  it('end without an answer when their tenant is removed; other scopes keep theirs', async () => {
    const mock = await start();
    const tenant = await mock.createTenant();
    await mock.injectFault({ delay_ms: 2_000 }, tenant.id);
    await inject(mock, { delay_ms: 300 });
    const removed = getOrCreate(mock, 'gone', tenant.api_keys.Customer);
    const kept = getOrCreate(mock, 'kept');
    await untilTaken(mock, tenant.id);
    await untilTaken(mock);
    await mock.deleteTenant(tenant.id);
    await expect(removed).rejects.toThrow();
    expect((await kept).status).toBe(200);
  });

  it('are cut when the mock closes, rather than holding close() for their delay', {
    timeout: 4_000,
  }, async () => {
    const mock = await start();
    await inject(mock, { delay_ms: 60_000 });
    const cut = getOrCreate(mock, 'late');
    await untilTaken(mock);
    await mock.close();
    await expect(cut).rejects.toThrow();
    expect(await mock.requests()).toEqual([]);
  });

  it('are journaled with status 0 when the client went away during the delay', async () => {
    const mock = await start();
    await mock.injectFault({ delay_ms: 300 });
    const gone = new AbortController();
    const abandoned = request(`${mock.url}/api/user`, {
      method: 'GET',
      headers: jsonHeaders(),
      body: JSON.stringify({ user_group_id: 'a', name: 'A' }),
      signal: gone.signal,
    });
    await untilTaken(mock);
    gone.abort();
    await expect(abandoned).rejects.toThrow();
    await untilJournaled(mock, 1);
    expect((await mock.requests()).map((e) => [e.status, e.responseBody])).toEqual([[0, null]]);
  });
});

describe('reset and the rate limit', () => {
  it('starts the rate limit of the scope keys again on reset', async () => {
    const mock = await start({ rateLimit: 1 });
    expect((await getOrCreate(mock, 'a')).status).toBe(200);
    expect((await getOrCreate(mock, 'b')).status).toBe(429);
    await mock.reset();
    expect((await getOrCreate(mock, 'c')).status).toBe(200);
  });

  it('leaves the counts of other scopes as they are, over HTTP too', async () => {
    const mock = await start({ rateLimit: 1 });
    const tenant = await mock.createTenant();
    const key = tenant.api_keys.Customer;
    expect((await getOrCreate(mock, 'a')).status).toBe(200);
    expect((await getOrCreate(mock, 'a', key)).status).toBe(200);
    expect((await getOrCreate(mock, 'b', key)).status).toBe(429);
    expect((await admin(mock.url, 'POST', '/__admin/reset', { key })).status).toBe(204);
    expect((await getOrCreate(mock, 'c', key)).status).toBe(200);
    expect((await getOrCreate(mock, 'd')).status).toBe(429);
  });
});
