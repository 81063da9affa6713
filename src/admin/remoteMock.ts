// The fixture controls of a mock running elsewhere (a container, a staging replica), over its /__admin routes: the
// same MockControls as createMockServer()'s, so one test file runs against either. Bodies are typed from
// openapi/admin.yaml's generated types.
import { request } from 'undici';
import { defaultTenantId } from '../domain/model.js';
import { type ApiError, product } from '../errors.js';
import { failure, ok, type Result } from '../result.js';
import type { components } from '../spec/admin-types.generated.js';
import type { Controls } from './controlsApi.js';
import { checkJournalQuery } from './journalQuery.js';
import { MockControlError, tenantNotFound } from './mockControlError.js';
import { type MockControls, rejectingControls } from './mockControls.js';

type Schemas = components['schemas'];

/** Where the mock runs and how to reach its admin API. */
export interface RemoteMockOptions {
  /** The mock's base URL, e.g. `http://127.0.0.1:4010` (no trailing `/api/user`). */
  readonly url: string;
  /** The mock's `--admin-key`, sent as `X-Admin-Key` on every `/__admin` call; none for a mock on loopback without one. */
  readonly adminKey?: string;
}

/** A mock running elsewhere, with the same awaitable controls as an in-process one. */
export interface RemoteMock extends MockControls {
  readonly url: string;
  /** The same controls (as `MockServer.admin`). */
  readonly admin: MockControls;
  /** Removes the tenants this client created; the mock itself keeps running. */
  close(): Promise<void>;
  /**
   * Whether other clients may share the mock: true for one connected to by its URL, whose default tenant's journal
   * then holds their requests with no tenant's key too (`useUserGroupMock()` says so when it reports one); false for
   * a container this process started for itself.
   */
  readonly shared: boolean;
}

interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string | string[] | undefined>;
}

/**
 * The controls of the mock at `options.url`, over `/__admin`: a control of a tenant sends one of its keys as
 * `Authorization: Token <key>`, as the admin API asks. Rejects when the mock does not answer its health check.
 */
export async function connectMock(options: RemoteMockOptions): Promise<RemoteMock> {
  if (typeof options?.url !== 'string' || !/^https?:\/\//.test(options.url))
    throw new TypeError(
      `${product}: connectMock({ url }): url must be the mock's base URL, e.g. "http://127.0.0.1:4010", not ${JSON.stringify(options?.url)}`,
    );
  const url = options.url.replace(/\/+$/, '');
  const keys = new Map<string, string>();
  const created = new Set<string>();

  const call = async (method: string, path: string, key?: string, body?: unknown): Promise<Reply> => {
    const headers: Record<string, string> = {};
    if (options.adminKey !== undefined) headers['x-admin-key'] = options.adminKey;
    if (key !== undefined) headers.authorization = `Token ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let answer: Awaited<ReturnType<typeof request>>;
    try {
      answer = await request(`${url}${path}`, {
        method: method as 'GET',
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new Error(
        `${product}: ${method} ${url}${path} failed (${(error as Error).message}); check that the mock runs at ${url}`,
      );
    }
    const text = await answer.body.text();
    return {
      status: answer.statusCode,
      body: text === '' ? undefined : JSON.parse(text),
      headers: answer.headers,
    };
  };

  /** The error an admin call answered with (the error envelope of openapi/admin.yaml). */
  const errorOf = (reply: Reply, what: string): ApiError => {
    const error = (reply.body as Partial<Schemas['ErrorResponse']> | undefined)?.error;
    if (error !== undefined && typeof error.code === 'string') return error as ApiError;
    throw new Error(
      `${product}: ${what} answered ${reply.status} without an error body; is ${url} the mock?`,
    );
  };
  const expect = (control: string, reply: Reply, status: number): unknown => {
    if (reply.status === status) return reply.body;
    throw new MockControlError(control, errorOf(reply, control));
  };
  const result = <T>(control: string, reply: Reply, status: number): Result<T> =>
    reply.status === status ? ok(reply.body as T) : failure(errorOf(reply, control));

  /** The key that puts a call in `tenant`'s scope: none for the default tenant. */
  const keyOf = async (tenant: unknown, control: string): Promise<string | undefined> => {
    if (tenant === defaultTenantId) return undefined;
    if (typeof tenant === 'string') {
      const known = keys.get(tenant);
      if (known !== undefined) return known;
      const listed = expect(
        control,
        await call('GET', '/__admin/tenants'),
        200,
      ) as Schemas['TenantSummary'][];
      const found = listed.find((summary) => summary.id === tenant);
      const key = found?.api_keys.Customer ?? found?.api_keys.Testing;
      if (key !== undefined) {
        keys.set(tenant, key);
        return key;
      }
    }
    throw tenantNotFound(control, tenant, ` at ${url}`);
  };
  const environmentQuery = (environment?: string) =>
    environment === undefined ? '' : `?environment=${encodeURIComponent(environment)}`;

  const controls: Controls = {
    async reset(tenant = defaultTenantId) {
      expect('reset', await call('POST', '/__admin/reset', await keyOf(tenant, 'reset')), 204);
    },
    async seedGroup(seed, tenant = defaultTenantId) {
      const key = await keyOf(tenant, 'seedGroup');
      return result('seedGroup', await call('POST', '/__admin/groups', key, seed), 201);
    },
    async groups(tenant = defaultTenantId, environment) {
      const key = await keyOf(tenant, 'groups');
      return expect(
        'groups',
        await call('GET', `/__admin/groups${environmentQuery(environment)}`, key),
        200,
      ) as Schemas['StoredGroup'][];
    },
    async removeGroups(tenant = defaultTenantId, environment) {
      const key = await keyOf(tenant, 'removeGroups');
      expect(
        'removeGroups',
        await call('DELETE', `/__admin/groups${environmentQuery(environment)}`, key),
        204,
      );
    },
    async token(token, tenant = defaultTenantId) {
      const key = await keyOf(tenant, 'token');
      const reply = await call('GET', `/__admin/tokens/${encodeURIComponent(token)}`, key);
      if (reply.status === 404) return undefined;
      return expect('token', reply, 200) as Schemas['TokenOwner'];
    },
    async requests(query = {}, tenant = defaultTenantId) {
      const { after, ...parameters } = checkJournalQuery(query);
      const key = await keyOf(tenant, 'requests');
      const search = new URLSearchParams(
        Object.entries(parameters).map(([name, value]) => [name, String(value)] as [string, string]),
      ).toString();
      const entries = expect(
        'requests',
        await call('GET', `/__admin/requests${search === '' ? '' : `?${search}`}`, key),
        200,
      ) as Schemas['JournalEntry'][];
      return after === undefined ? entries : entries.filter((entry) => entry.id > after);
    },
    async clearRequests(tenant = defaultTenantId) {
      expect(
        'clearRequests',
        await call('DELETE', '/__admin/requests', await keyOf(tenant, 'clearRequests')),
        204,
      );
    },
    async droppedRequests(tenant = defaultTenantId) {
      const key = await keyOf(tenant, 'droppedRequests');
      const reply = await call('GET', '/__admin/requests?limit=1', key);
      expect('droppedRequests', reply, 200);
      return Number(reply.headers['x-journal-dropped'] ?? 0);
    },
    async createTenant() {
      const tenant = expect('createTenant', await call('POST', '/__admin/tenants'), 201) as Schemas['Tenant'];
      keys.set(tenant.id, tenant.api_keys.Customer);
      created.add(tenant.id);
      return tenant;
    },
    async deleteTenant(id, scope = defaultTenantId) {
      const key = await keyOf(scope, 'deleteTenant');
      const reply = await call('DELETE', `/__admin/tenants/${encodeURIComponent(id)}`, key);
      if (reply.status === 204) {
        keys.delete(id);
        created.delete(id);
      }
      return result<undefined>('deleteTenant', reply, 204);
    },
    async injectFault(spec, tenant = defaultTenantId) {
      const key = await keyOf(tenant, 'injectFault');
      return result('injectFault', await call('POST', '/__admin/faults', key, spec), 201);
    },
    async faults(tenant = defaultTenantId) {
      return expect(
        'faults',
        await call('GET', '/__admin/faults', await keyOf(tenant, 'faults')),
        200,
      ) as Schemas['Fault'][];
    },
    async clearFaults(tenant = defaultTenantId) {
      expect('clearFaults', await call('DELETE', '/__admin/faults', await keyOf(tenant, 'clearFaults')), 204);
    },
    async health() {
      return expect('health', await call('GET', '/__admin/health'), 200) as Schemas['Health'];
    },
    async tenants(scope = defaultTenantId) {
      return expect(
        'tenants',
        await call('GET', '/__admin/tenants', await keyOf(scope, 'tenants')),
        200,
      ) as Schemas['TenantSummary'][];
    },
    async watchRequests() {
      throw new TypeError(
        `${product}: watchRequests is in process only; for a mock at ${url}, read GET /__admin/events (server-sent events) or poll requests()`,
      );
    },
  };

  const mock = rejectingControls(controls);
  await mock.health();
  return {
    ...mock,
    admin: mock,
    url,
    shared: true,
    async close() {
      for (const id of [...created]) await mock.deleteTenant(id).catch(() => undefined);
    },
  };
}
