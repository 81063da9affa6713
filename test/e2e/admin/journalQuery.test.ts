import { describe, expect, it } from 'vitest';
import { createValidatingProxy, type JournalQuery } from '../../../src/index.js';
import { admin, service, useMocks } from '../../support/admin.js';
import { testingKey } from '../../support/http.js';

const start = useMocks();

/** Queries GET /__admin/requests refuses with 400, as the query object an in-process caller would pass. */
const refused: readonly [string, Record<string, unknown>, string, RegExp][] = [
  [
    'an operation id that is not one',
    { operationId: 'rotate', invalid: true },
    'operationId=rotate&invalid=true',
    /operationId must be one of .*; did you mean "rotateUserGroupToken"\?/,
  ],
  ['a limit of 0', { limit: 0 }, 'limit=0', /limit must be >= 1/],
  ['a negative limit', { limit: -1 }, 'limit=-1', /limit must be >= 1/],
  ['a limit above the largest journal', { limit: 100001 }, 'limit=100001', /limit must be <= 100000/],
  ['invalid as text', { invalid: 'yes' }, 'invalid=yes', /invalid must be a boolean/],
  [
    'a misspelt parameter',
    { operationid: 'updateUserGroup' },
    'operationid=updateUserGroup',
    /unknown field "operationid"; did you mean "operationId"\?/,
  ],
];

describe('the journal query in process and over HTTP', () => {
  it.each(refused)('refuses %s both ways', async (_name, query, search, message) => {
    const mock = await start();
    const answer = await admin(mock.url, 'GET', `/__admin/requests?${search}`);
    expect(answer.status).toBe(400);
    await expect(mock.requests(query as JournalQuery)).rejects.toThrow(message);
    // The awaitable controls (the admin API's; a PostgreSQL store's in process) check it the same way.
    await expect(mock.admin.requests(query as JournalQuery)).rejects.toThrow(message);
  });

  it('lists the same entries both ways for a query both accept', async () => {
    const mock = await start();
    await service(mock, 'GET', { user_group_id: 'a', name: 'A' });
    await service(mock, 'GET', { name: 'A', userGroupId: 'a' }, testingKey);
    await service(mock, 'PUT', { user_group_id: 'a', name: 'B' });
    const query: JournalQuery = { operationId: 'getOrCreateUserGroup', limit: 1 };
    const answer = await admin(mock.url, 'GET', '/__admin/requests?operationId=getOrCreateUserGroup&limit=1');
    expect(answer.body).toEqual(await mock.requests(query));
    expect((await mock.requests(query)).map((entry) => entry.status)).toEqual([400]);
  });

  it("refuses the proxy's requests(query) alike", async () => {
    const mock = await start();
    const proxy = await createValidatingProxy({ target: mock.url });
    try {
      await expect(proxy.requests({ limit: 0 })).rejects.toThrow(/limit must be >= 1/);
      expect(await proxy.requests({ limit: 1 })).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
