import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PageHandler } from '../../../src/http/app.js';
import { operations } from '../../../src/spec/operations.js';
import { AssetStore } from '../../../src/ui/assets.js';
import { createPages, type PagesHost } from '../../../src/ui/pages.js';
import { admin, type Mock, service, useMocks } from '../../support/admin.js';
import { customerKey, testingKey } from '../../support/http.js';
import { postgresAvailable, startTestCluster, type TestCluster } from '../../support/postgres.js';
import { useTempDir } from '../../support/tempDir.js';

const start = useMocks();
const tempDir = useTempDir();

interface Page {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** Loads a page as a browser would (gzip accepted), and returns its text unzipped. */
async function load(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Page> {
  const response = await request(url, {
    method: method as 'GET',
    headers: { 'accept-encoding': 'gzip', ...headers },
  });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  const text =
    response.headers['content-encoding'] === 'gzip'
      ? gunzipSync(bytes).toString('utf8')
      : bytes.toString('utf8');
  return { status: response.statusCode, headers: response.headers, text };
}

/** The OpenAPI document a reference page renders (written into the page). */
function documentOf(page: Page) {
  const json = /<script type="application\/json" id="openapi">(.*?)<\/script>/s.exec(page.text)?.[1];
  return JSON.parse(json ?? 'null');
}

const visible = (html: string): string =>
  html.replace(/<[^>]+>/g, '').replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));

async function group(mock: Mock, id: string, key = customerKey, extra: Record<string, unknown> = {}) {
  return (await service(mock, 'GET', { user_group_id: id, name: `Group ${id}`, ...extra }, key)).body
    .user_group;
}

describe('the inspector page', () => {
  it('is served without the admin key, holds no data, and forbids scripts, styles and frames from elsewhere', async () => {
    const mock = await start({ adminKey: 'secret' });
    await group(mock, 'customer-a');
    const page = await load(`${mock.url}/__admin/ui`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<script type="module" src="/__admin/ui/assets/inspector.js">');
    expect(page.text).not.toContain('customer-a');
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it("names the service's operations from the document", async () => {
    const mock = await start();
    const page = await load(`${mock.url}/__admin/ui`);
    const json = /<script type="application\/json" id="operations">(.*?)<\/script>/s.exec(page.text)?.[1];
    expect(JSON.parse(json ?? '[]')).toEqual(
      operations().map(({ operationId, shortName, method }) => ({ operationId, shortName, method })),
    );
  });

  it('serves its script gzipped, under 100 KB, with an entity tag that answers 304', async () => {
    const mock = await start();
    const script = await request(`${mock.url}/__admin/ui/assets/inspector.js`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    const zipped = Buffer.from(await script.body.arrayBuffer());
    expect(script.headers['content-encoding']).toBe('gzip');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(zipped.length).toBeLessThan(100 * 1024);
    const again = await request(`${mock.url}/__admin/ui/assets/inspector.js`, {
      headers: { 'if-none-match': script.headers.etag as string },
    });
    await again.body.dump();
    expect(again.statusCode).toBe(304);
  });

  it('is not journaled, and answers other methods 405 and unknown files 404 in the envelope', async () => {
    const mock = await start();
    await load(`${mock.url}/__admin/ui`);
    await load(`${mock.url}/docs`);
    const posted = await load(`${mock.url}/docs`, {}, 'POST');
    expect([posted.status, JSON.parse(posted.text).error.code, posted.headers.allow]).toEqual([
      405,
      'METHOD_NOT_ALLOWED',
      'GET, HEAD',
    ]);
    const missing = await load(`${mock.url}/__admin/ui/assets/other.js`);
    expect([missing.status, JSON.parse(missing.text).error.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
    expect(JSON.parse(missing.text).error.message).toContain('/embed/component.js');
    expect((await admin(mock.url, 'GET', '/__admin/requests')).body).toEqual([]);
  });
});

/** Page handlers served alone on 127.0.0.1 (no mock around them), closed after each test. */
const pageServers: Server[] = [];
afterEach(async () => {
  for (const server of pageServers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** Serves `pages` alone on a free port; resolves its base URL. */
async function servePages(pages: PageHandler): Promise<string> {
  const server = createServer((req, res) => pages(req, res, (req.url ?? '/').split('?')[0] as string));
  pageServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the pages of a package that was not built', () => {
  it('answer 503 naming the build to run', async () => {
    const host = { logger: { info: () => undefined } } as unknown as PagesHost;
    const url = await servePages(createPages(host, new AssetStore(new URL(`file://${tempDir()}/`))));
    const answer = await load(`${url}/embed/component.js`);
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text).error.code).toBe('PAGES_NOT_BUILT');
    expect(JSON.parse(answer.text).error.message).toContain('run "npm run build"');
  });
});

describe('a page whose answer fails', () => {
  it('answers 500 in the envelope and logs the stack, and the next page is served', async () => {
    const errors: unknown[] = [];
    const host = {
      logger: { info: () => undefined, error: (fields: unknown) => errors.push(fields) },
    } as unknown as PagesHost;
    let failing = true;
    const store = new AssetStore();
    const assets = {
      get: (name: string) => {
        if (failing) throw new Error('the asset store broke');
        return store.get(name);
      },
    } as AssetStore;
    const url = await servePages(createPages(host, assets));
    const broken = await load(`${url}/embed/component.js`);
    expect([broken.status, JSON.parse(broken.text).success, JSON.parse(broken.text).error.code]).toEqual([
      500,
      0,
      'INTERNAL_ERROR',
    ]);
    expect(errors).toHaveLength(1);
    failing = false;
    expect((await load(`${url}/embed/component.js`)).status).toBe(200);
  });
});

describe('the API reference', () => {
  it('renders the document with this mock as its server, its development keys, and curl and undici samples for every operation', async () => {
    const mock = await start();
    const page = await load(`${mock.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script src="/docs/assets/redoc.standalone.js"></script>');
    const text = visible(page.text);
    expect(text).toContain(mock.url);
    expect(text).toContain('dev-customer-key');
    expect(text).toContain('dev-testing-key');
    expect(text).toContain('Browsers cannot send a GET with a body');
    const document = documentOf(page);
    expect(document.servers).toEqual([{ url: mock.url, description: 'this mock' }]);
    const ops = document.paths['/api/user'];
    for (const method of ['get', 'put', 'post']) {
      expect(ops[method]['x-codeSamples'].map((s: { label: string }) => s.label)).toEqual([
        'curl',
        'undici.request',
      ]);
      expect(ops[method]['x-codeSamples'][0].source).toContain(`${mock.url}/api/user`);
    }
    expect(ops.get.description).toMatch(/^> \*\*Browsers cannot send this request\.\*\*/);
    expect(ops.put.description).not.toContain('Browsers cannot send');
  });

  it('shows a get-or-create sample that works as it is', async () => {
    const mock = await start();
    const curl = documentOf(await load(`${mock.url}/docs`)).paths['/api/user'].get['x-codeSamples'][0].source;
    // Run as a shell runs it (asynchronously: the mock answers from this very process).
    const { stdout } = await promisify(execFile)('sh', ['-c', curl], { timeout: 10_000 });
    const answer = JSON.parse(stdout);
    // The sample sends the document's first get-or-create example.
    const sent = JSON.parse(/-d '([^']*)'/.exec(curl)?.[1] ?? '{}') as { user_group_id?: string };
    expect(sent.user_group_id).toEqual(expect.any(String));
    expect(answer).toMatchObject({
      success: 1,
      new_user_group: true,
      user_group: { provided_id: sent.user_group_id },
    });
  });

  it('renders the admin document under /docs/admin, and hides the keys when the mock has an admin key', async () => {
    const mock = await start({
      adminKey: 'secret',
      apiKeys: [{ key: 'private-key', environment: 'Customer' }],
    });
    const page = await load(`${mock.url}/docs/admin`);
    expect(page.status).toBe(200);
    const document = documentOf(page);
    expect(document.info.title).toBe('user-group-mock admin API');
    // One document for the renderer: the schemas it shares with the service document are copied in.
    expect(JSON.stringify(document)).not.toContain('user-group-service.yaml#');
    expect(document.components.schemas.ServiceErrorCode.enum).toContain('AUTH_MISSING');
    expect(document.components.schemas.ErrorCode.enum).toContain('ADMIN_KEY_REQUIRED');
    expect(document.paths['/__admin/groups'].post['x-codeSamples'][0].source).toContain(
      "-H 'X-Admin-Key: <the --admin-key value>'",
    );
    expect(page.text).not.toContain('private-key');
    expect(page.text).not.toContain('secret');
    const docs = visible((await load(`${mock.url}/docs`)).text);
    expect(docs).toContain('The API keys are not shown');
    expect(docs).toContain('Use the values given with --api-key');
    expect(docs).not.toContain('the default keys apply');
  });

  it('says the default keys apply when the keys are hidden and no --api-key was given', async () => {
    const mock = await start({ adminKey: 'secret' });
    const docs = visible((await load(`${mock.url}/docs`)).text);
    expect(docs).toContain('The API keys are not shown');
    expect(docs).toContain('the default keys apply: the ones user-group-mock serve --help lists');
    expect(docs).not.toContain('Use the values given with --api-key');
    expect(docs).not.toContain('dev-customer-key');
  });
});

/** The embed preview reads the groups of the store the mock runs on: in memory, or PostgreSQL (every replica's). */
const embedStores = [
  { name: 'in memory', postgres: false },
  ...(postgresAvailable() ? [{ name: 'PostgreSQL', postgres: true }] : []),
];

describe.each(embedStores)('the embed preview, $name', ({ postgres }) => {
  let cluster: TestCluster | undefined;
  beforeAll(async () => {
    if (postgres) cluster = await startTestCluster();
  }, 60_000);
  afterAll(() => cluster?.remove());
  const fresh = async (): Promise<Mock> =>
    start(cluster === undefined ? {} : { db: await cluster.createDatabase() });
  const preview = (mock: Mock, query: Record<string, string>) =>
    load(`${mock.url}/embed/sales-overview?${new URLSearchParams(query)}`);

  it('shows the group a token identifies, its properties as variables and its mapping as data sources', async () => {
    const mock = await fresh();
    const g = await group(mock, 'customer-a', customerKey, {
      name: 'Customer A',
      properties: { region: 'EU' },
      mapping: { '40': '213' },
    });
    const page = await preview(mock, { token: g.token });
    expect(page.status).toBe(200);
    const text = visible(page.text);
    expect(text).toContain('Viewing as Customer A (customer-a, Customer)');
    expect(text).toContain('{{region}}"EU"');
    expect(text).toContain('schema 40data source 213');
    expect(page.headers['content-security-policy']).not.toContain('frame-ancestors');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
  });

  it.each([
    ['no token', {}, 400, 'No token'],
    ['an unknown token', { token: 'a'.repeat(64) }, 404, 'Unknown token'],
    ['an API key', { token: customerKey }, 400, 'An API key, not a user group token'],
    ['an unknown tenant', { token: 'a'.repeat(64), tenant: 't-nope' }, 404, 'Unknown tenant'],
    ['an unknown environment', { token: 'a'.repeat(64), environment: 'Prod' }, 400, 'Unknown environment'],
  ])('answers %s with a card saying what is wrong', async (_case, query, status, title) => {
    const mock = await fresh();
    const page = await preview(mock, query as Record<string, string>);
    expect(page.status).toBe(status);
    expect(visible(page.text)).toContain(title);
    expect(page.text).not.toContain(customerKey);
  });

  it('says a rotated token was rotated, and what to do', async () => {
    const mock = await fresh();
    const g = await group(mock, 'customer-a');
    await service(mock, 'POST', { current_token: g.token });
    const page = await preview(mock, { token: g.token });
    expect(page.status).toBe(410);
    const text = visible(page.text);
    expect(text).toContain("This token was rotated; fetch the group's current token.");
    expect(text).toContain('"user_group_id": "customer-a" answers the current token');
    await admin(mock.url, 'POST', '/__admin/reset');
    expect(visible((await preview(mock, { token: g.token })).text)).toContain(
      'Its group has since been removed',
    );
  });

  it('names a rotation before the mock last started among the reasons a token is unknown', async () => {
    // The store keeps the groups across the restart; the memory of rotations is the process's.
    const options = { db: cluster === undefined ? `${tempDir()}/db.json` : await cluster.createDatabase() };
    const mock = await start(options);
    const g = await group(mock, 'customer-a');
    await service(mock, 'POST', { current_token: g.token });
    expect((await preview(mock, { token: g.token })).status).toBe(410);
    await mock.close();
    const page = await preview(await start(options), { token: g.token });
    expect(page.status).toBe(404);
    expect(visible(page.text)).toContain(
      'or a rotation replaced it before the mock last started (the preview remembers rotations only while the mock runs)',
    );
  });

  it('refuses a token of another environment or another tenant, naming the way out', async () => {
    const mock = await fresh();
    const testing = await group(mock, 'test-a', testingKey);
    const other = await preview(mock, { token: testing.token });
    expect(other.status).toBe(403);
    expect(visible(other.text)).toContain(
      'This token belongs to a Testing group, but this dashboard is embedded for Customer.',
    );
    expect((await preview(mock, { token: testing.token, environment: 'Testing' })).status).toBe(200);

    const tenant = (await admin(mock.url, 'POST', '/__admin/tenants')).body;
    const theirs = await group(mock, 'theirs', tenant.api_keys.Customer);
    const foreign = await preview(mock, { token: theirs.token });
    expect(foreign.status).toBe(403);
    expect(visible(foreign.text)).toContain(
      `This token belongs to a group of tenant ${tenant.id}, but this dashboard belongs to tenant default.`,
    );
    expect((await preview(mock, { token: theirs.token, tenant: tenant.id })).status).toBe(200);
  });

  it('refuses an environment or a tenant that does not exist, whatever the token', async () => {
    const mock = await fresh();
    const g = await group(mock, 'customer-a', customerKey);
    const environment = await preview(mock, { token: g.token, environment: 'Staging' });
    expect(environment.status).toBe(400);
    expect(visible(environment.text)).toContain('environment must be Customer or Testing, not Staging.');
    const tenant = await preview(mock, { token: g.token, tenant: 'nobody' });
    expect(tenant.status).toBe(404);
    expect(visible(tenant.text)).toContain('This mock has no tenant nobody');
  });

  it('serves the web component to pages of any origin', async () => {
    const mock = await fresh();
    const component = await load(`${mock.url}/embed/component.js`, { origin: 'http://integrator.test' });
    expect(component.status).toBe(200);
    expect(component.headers['access-control-allow-origin']).toBe('*');
    expect(component.text).toContain('user-group-dashboard');
  });
});
