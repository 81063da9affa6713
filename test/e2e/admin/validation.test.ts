import { describe, expect, it } from 'vitest';
import { admin, hex64, service, useMocks } from '../../support/admin.js';

const start = useMocks();

const group = { environment: 'Customer', user_group_id: 'a', name: 'A' };

interface Case {
  /** When the answer is given, for the test's name. */
  readonly why: string;
  readonly call: string;
  readonly body?: unknown;
  readonly raw?: string;
  readonly headers?: Record<string, string>;
  readonly status: number;
  readonly code: string;
  /** `code path` of each diagnostic, in order. */
  readonly details: readonly string[];
  /** A phrase of the message that names the fix. */
  readonly hint: string;
}

const cases: readonly Case[] = [
  {
    why: 'the seeded environment is unknown',
    call: 'POST /__admin/groups',
    body: { ...group, environment: 'Production' },
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['INVALID_VALUE /body/environment'],
    hint: 'must be one of "Customer", "Testing"',
  },
  {
    why: 'a seed spells user_group_id as userGroupId',
    call: 'POST /__admin/groups',
    body: { environment: 'Customer', userGroupId: 'a', name: 'A' },
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['UNKNOWN_FIELD /body/userGroupId', 'MISSING_FIELD /body/user_group_id'],
    hint: 'the request does not match seedGroup: body has unknown field "userGroupId"; did you mean "user_group_id"?',
  },
  {
    why: 'a seeded token is upper-case hex',
    call: 'POST /__admin/groups',
    body: { ...group, token: hex64('A') },
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['INVALID_FORMAT /body/token'],
    hint: '64 lowercase hexadecimal characters',
  },
  {
    why: 'a seed has team_id 0 and a number in mapping',
    call: 'POST /__admin/groups',
    body: { ...group, team_id: 0, mapping: { '40': 213 } },
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['SCHEMA_MINIMUM /body/team_id', 'WRONG_TYPE /body/mapping/40'],
    hint: 'team_id must be >= 1',
  },
  {
    why: 'the seed body is not JSON',
    call: 'POST /__admin/groups',
    raw: '{"environment": "Customer",',
    status: 400,
    code: 'BODY_INVALID_JSON',
    details: ['BODY_INVALID_JSON /body'],
    hint: 'JSON.stringify',
  },
  {
    why: 'the seed body is an array',
    call: 'POST /__admin/groups',
    raw: '[]',
    status: 400,
    code: 'BODY_NOT_OBJECT',
    details: ['BODY_NOT_OBJECT /body'],
    hint: 'not an array',
  },
  {
    why: 'the seed body is missing',
    call: 'POST /__admin/groups',
    status: 400,
    code: 'BODY_MISSING',
    details: ['BODY_MISSING /body'],
    hint: 'needs a JSON body',
  },
  {
    why: 'the seed body is sent as text/plain',
    call: 'POST /__admin/groups',
    raw: JSON.stringify(group),
    headers: { 'content-type': 'text/plain' },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    details: ['UNSUPPORTED_MEDIA_TYPE /headers/content-type'],
    hint: 'Content-Type: application/json',
  },
  {
    why: 'a fault names unknown values and out-of-range numbers',
    call: 'POST /__admin/faults',
    body: { operationId: 'rotate', status: 200, times: 0, action: 'close' },
    status: 400,
    code: 'VALIDATION_FAILED',
    details: [
      'INVALID_VALUE /body/operationId',
      'SCHEMA_MINIMUM /body/status',
      'SCHEMA_MINIMUM /body/times',
      'INVALID_VALUE /body/action',
    ],
    hint: 'must be one of "getOrCreateUserGroup"',
  },
  {
    why: 'a fault names a misspelt operation over HTTP, as in process',
    call: 'POST /__admin/faults',
    body: { operationId: 'updateUserGoup', status: 503 },
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['INVALID_VALUE /body/operationId'],
    hint: 'must be one of "getOrCreateUserGroup", "updateUserGroup", "rotateUserGroupToken"; did you mean "updateUserGroup"?',
  },
  {
    why: 'a fault has neither status, delay_ms nor action',
    call: 'POST /__admin/faults',
    body: { operationId: 'updateUserGroup', times: 2 },
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['MISSING_FIELD /body'],
    hint: 'at least one of "status", "delay_ms", "action"',
  },
  {
    why: 'a fault spells delay_ms as delayMs and waits too long',
    call: 'POST /__admin/faults',
    body: { delay_ms: 61_000, delayMs: 5 },
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['UNKNOWN_FIELD /body/delayMs', 'SCHEMA_MAXIMUM /body/delay_ms'],
    hint: 'did you mean "delay_ms"?',
  },
  {
    why: 'the journal query has limit 0 and invalid=yes',
    call: 'GET /__admin/requests?limit=0&invalid=yes',
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['WRONG_TYPE /query/invalid', 'SCHEMA_MINIMUM /query/limit'],
    hint: 'the request does not match listRequests',
  },
  {
    why: 'the journal query writes invalid=1 and limit=ten',
    call: 'GET /__admin/requests?invalid=1&limit=ten',
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['WRONG_TYPE /query/invalid', 'WRONG_TYPE /query/limit'],
    hint: 'query parameter invalid=1 must be true or false (and 1 more problem in details)',
  },
  {
    why: 'the journal query spells operationId as operationID',
    call: 'GET /__admin/requests?operationID=updateUserGroup',
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['UNKNOWN_FIELD /query/operationID'],
    hint: 'did you mean "operationId"?',
  },
  {
    why: 'the journal query repeats limit',
    call: 'GET /__admin/requests?limit=1&limit=2',
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['WRONG_TYPE /query/limit'],
    hint: 'query parameter limit is given 2 times; give it once',
  },
  {
    why: 'the query names __proto__ twice',
    call: 'GET /__admin/groups?__proto__=a&__proto__=b',
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['UNKNOWN_FIELD /query/__proto__'],
    hint: 'allowed fields are "environment"',
  },
  {
    why: 'the groups query has a lower-case environment',
    call: 'GET /__admin/groups?environment=customer',
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['INVALID_VALUE /query/environment'],
    hint: '"Customer", "Testing"',
  },
  {
    why: 'a token check names something other than a token',
    call: 'GET /__admin/tokens/not%2Fa%20token',
    status: 400,
    code: 'VALIDATION_FAILED',
    details: ['INVALID_FORMAT /path/token'],
    hint: 'not the API key',
  },
  {
    why: 'the path has a typo',
    call: 'GET /__admin/group',
    status: 404,
    code: 'ROUTE_NOT_FOUND',
    details: ['ROUTE_NOT_FOUND /path'],
    hint: 'GET /__admin/groups',
  },
  {
    why: 'the token check has no token',
    call: 'GET /__admin/tokens',
    status: 404,
    code: 'ROUTE_NOT_FOUND',
    details: ['ROUTE_NOT_FOUND /path'],
    hint: 'GET /__admin/tokens/{token}',
  },
  {
    why: "the method is not one of the path's",
    call: 'PATCH /__admin/groups',
    body: group,
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    details: ['METHOD_NOT_ALLOWED /method'],
    hint: 'it answers GET, POST',
  },
];

describe('admin request checks', () => {
  for (const c of cases) {
    it(`answers ${c.call} with ${c.status} ${c.code} when ${c.why}`, async () => {
      const mock = await start();
      const [method, path] = c.call.split(' ') as [string, string];
      const answer = await admin(mock.url, method, path, {
        ...(c.body === undefined ? {} : { body: c.body }),
        ...(c.raw === undefined ? {} : { raw: c.raw }),
        headers: { ...(c.raw === undefined ? {} : { 'content-type': 'application/json' }), ...c.headers },
      });
      expect(answer.status).toBe(c.status);
      expect(answer.body.error.code).toBe(c.code);
      expect(
        answer.body.error.details.map((d: { code: string; path: string }) => `${d.code} ${d.path}`),
      ).toEqual(c.details);
      expect(answer.body.error.message).toContain(c.hint);
      expect(await mock.groups()).toEqual([]);
      expect(await mock.faults()).toEqual([]);
    });
  }

  it('suggests user_group_id for a seed that names the id provided_id, as the listing does', async () => {
    const mock = await start();
    const answer = await admin(mock.url, 'POST', '/__admin/groups', {
      body: { environment: 'Customer', provided_id: 'a', name: 'A' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toContainEqual({
      code: 'UNKNOWN_FIELD',
      path: '/body/provided_id',
      message:
        'body has unknown field "provided_id"; did you mean "user_group_id"? (answers and listings call it "provided_id")',
    });
  });

  it('seeds a group as GET /__admin/groups lists it, its null mapping and properties taken as none', async () => {
    const from = await start();
    await service(from, 'GET', { user_group_id: 'a', name: 'A' });
    const [listed] = (await admin(from.url, 'GET', '/__admin/groups')).body;
    expect(listed).toMatchObject({ mapping: null, properties: null });
    const { provided_id, ...rest } = listed;
    const to = await start();
    const seeded = await admin(to.url, 'POST', '/__admin/groups', {
      body: { ...rest, user_group_id: provided_id },
    });
    expect(seeded.status).toBe(201);
    expect((await admin(to.url, 'GET', '/__admin/groups')).body).toEqual([listed]);
  });

  it('answers 405 with an Allow header listing the methods of the path', async () => {
    const mock = await start();
    const answer = await admin(mock.url, 'PUT', '/__admin/requests');
    expect(answer.headers.allow).toBe('GET, DELETE');
  });

  it('answers 413 for a body over the limit', async () => {
    const mock = await start({ bodyLimit: 100 });
    const answer = await admin(mock.url, 'POST', '/__admin/groups', {
      body: { ...group, properties: { note: 'x'.repeat(200) } },
    });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses a body sent to an operation that takes none, rather than ignore it, and changes nothing', async () => {
    const mock = await start();
    expect((await admin(mock.url, 'POST', '/__admin/groups', { body: group })).status).toBe(201);
    // A filter the reset does not have: ignored, it would have emptied every environment.
    for (const raw of ['{"environment":"Testing"}', 'not json']) {
      const answer = await admin(mock.url, 'POST', '/__admin/reset', {
        raw,
        headers: { 'content-type': 'text/plain' },
      });
      expect(answer.status, raw).toBe(400);
      expect(answer.body.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        message:
          'POST /__admin/reset takes no body and would ignore this one; send it without a body; a reset empties every environment of its tenant, and a test that needs a state of its own takes a tenant (POST /__admin/tenants)',
        details: [{ code: 'VALIDATION_FAILED', path: '/body' }],
      });
    }
    expect(await mock.groups()).toHaveLength(1);
    const tenant = await admin(mock.url, 'POST', '/__admin/tenants', { raw: '{"name":"x"}' });
    expect(tenant.status).toBe(400);
  });

  it('takes an empty body or {} as no body, as some clients send one by default', async () => {
    const mock = await start();
    for (const raw of ['{}', ' { } ', '']) {
      const answer = await admin(mock.url, 'POST', '/__admin/reset', {
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status, JSON.stringify(raw)).toBe(204);
    }
    expect((await admin(mock.url, 'POST', '/__admin/tenants', { body: {} })).status).toBe(201);
  });
});
