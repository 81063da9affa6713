import { afterEach, describe, expect, it } from 'vitest';
import { checkAdminSchema } from '../../../src/admin/adminDocument.js';
import { admin, service, useMocks } from '../../support/admin.js';
import { type EventStream, openEvents } from '../../support/events.js';

const start = useMocks();
const open: EventStream[] = [];
afterEach(() => {
  for (const stream of open.splice(0)) stream.close();
});

async function events(url: string, query = '', headers: Record<string, string> = {}): Promise<EventStream> {
  const stream = await openEvents(url, query, headers);
  open.push(stream);
  return stream;
}

const journalEntry = '/components/schemas/JournalEntry';

describe('GET /__admin/events (the journal, live)', () => {
  it('sends the entries above `after`, then each request as it is journaled, each a JournalEntry', async () => {
    const mock = await start();
    await service(mock, 'GET', { user_group_id: 'a', name: 'A' });
    await service(mock, 'GET', { user_group_id: 'b', name: 'B' });
    const stream = await events(mock.url, '?after=1');
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const [backlog] = await stream.next(1);
    expect([backlog?.event, backlog?.id, backlog?.data.requestBody]).toEqual([
      'request',
      '2',
      { user_group_id: 'b', name: 'B' },
    ]);

    await service(mock, 'GET', { name: 'C', userGroupId: 'c' });
    const [, live] = await stream.next(2);
    expect(live?.id).toBe('3');
    expect(live?.data).toMatchObject({ status: 400, operationId: 'getOrCreateUserGroup' });
    expect(live?.data.diagnostics.map((d: { path: string }) => d.path)).toContain('/body/userGroupId');
    for (const event of [backlog, live]) expect(checkAdminSchema(journalEntry, event?.data, '')).toEqual([]);
  });

  it('sends only new requests without `after`, and says when the journal is emptied', async () => {
    const mock = await start();
    await service(mock, 'GET', { user_group_id: 'old', name: 'Old' });
    const stream = await events(mock.url);
    await admin(mock.url, 'DELETE', '/__admin/requests');
    await service(mock, 'GET', { user_group_id: 'new', name: 'New' });
    const received = await stream.next(2);
    expect(received.map((e) => [e.event, e.data?.requestBody?.user_group_id])).toEqual([
      ['cleared', undefined],
      ['request', 'new'],
    ]);
  });

  it('hears only the requests of its own scope', async () => {
    const mock = await start();
    const tenant = (await admin(mock.url, 'POST', '/__admin/tenants')).body;
    const key = tenant.api_keys.Customer as string;
    const own = await events(mock.url, '?after=0', { authorization: `Token ${key}` });
    const other = await events(mock.url, '?after=0');
    await service(mock, 'GET', { user_group_id: 'mine', name: 'Mine' }, key);
    await service(mock, 'GET', { user_group_id: 'theirs', name: 'Theirs' });
    expect((await own.next(1))[0]?.data.requestBody.user_group_id).toBe('mine');
    expect((await other.next(1))[0]?.data.requestBody.user_group_id).toBe('theirs');
    await service(mock, 'GET', { user_group_id: 'mine-2', name: 'Mine' }, key);
    expect((await own.next(2))[1]?.data.requestBody.user_group_id).toBe('mine-2');
    await expect(other.next(2, 300)).rejects.toThrow('only 1 of 2');
  });

  it('ends cleanly when the mock closes, rather than being cut off when the close times out', async () => {
    const mock = await start();
    const stream = await events(mock.url);
    await mock.close();
    expect(await stream.ended).toBe('complete');
  });

  it('needs the admin key when the mock has one, like every admin call', async () => {
    const mock = await start({ adminKey: 'secret' });
    const refused = await admin(mock.url, 'GET', '/__admin/events');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('ADMIN_KEY_REQUIRED');
    const stream = await events(mock.url, '?after=0', { 'x-admin-key': 'secret' });
    expect(stream.status).toBe(200);
  });

  it('refuses an `after` that is not a non-negative integer', async () => {
    const mock = await start();
    const refused = await admin(mock.url, 'GET', '/__admin/events?after=-1');
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].path).toBe('/query/after');
  });
});

describe('GET /__admin/tenants', () => {
  it('lists the default tenant first, then the tenants made, each with a key per environment and its group count', async () => {
    const mock = await start({
      apiKeys: [
        { key: 'ci-customer', environment: 'Customer' },
        { key: 'ci-customer-2', environment: 'Customer' },
      ],
    });
    const first = (await admin(mock.url, 'POST', '/__admin/tenants')).body;
    const second = (await admin(mock.url, 'POST', '/__admin/tenants')).body;
    await service(mock, 'GET', { user_group_id: 'a', name: 'A' }, first.api_keys.Testing);
    const listed = await admin(mock.url, 'GET', '/__admin/tenants');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      { id: 'default', api_keys: { Customer: 'ci-customer' }, groups: 0 },
      { id: first.id, api_keys: first.api_keys, groups: 1 },
      { id: second.id, api_keys: second.api_keys, groups: 0 },
    ]);
  });

  it("shows a tenant's own scope only that tenant", async () => {
    const mock = await start();
    const first = (await admin(mock.url, 'POST', '/__admin/tenants')).body;
    await admin(mock.url, 'POST', '/__admin/tenants');
    const listed = await admin(mock.url, 'GET', '/__admin/tenants', { key: first.api_keys.Customer });
    expect(listed.body.map((t: { id: string }) => t.id)).toEqual([first.id]);
  });
});
