import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminDocument } from '../../../src/admin/adminDocument.js';
import { serviceDocument } from '../../../src/spec/loadDocument.js';
import { listOperations } from '../../../src/spec/operations.js';
import { admin, type Mock, service, useMocks } from '../../support/admin.js';
import { type Browser, findChromium, launchBrowser, takingScreenshots } from '../../support/browser.js';
import { call, customerKey } from '../../support/http.js';
import { answerJson, useProxies, useTargets } from '../../support/proxy.js';

const executable = findChromium();
const inCi = process.env.CI === 'true';
if (executable === undefined && !inCi)
  console.warn(
    'user-group-mock: Chromium not found (apt-get install chromium, or set CHROMIUM_PATH): the browser tests are skipped',
  );

describe.runIf(executable === undefined && inCi)('the browser tests on CI', () => {
  it('find Chromium (.ci/run installs it with apt-get install chromium)', () => {
    expect(executable).toBeDefined();
  });
});

const summaries = (document: ReturnType<typeof serviceDocument>): string[] =>
  listOperations(document).map((o) => {
    const item = document.paths?.[o.path]?.[o.method.toLowerCase() as 'get'];
    return item?.summary as string;
  });

const screenshots = new URL('../../../docs/images/', import.meta.url);

/** Run in the page: the form controls and buttons without an accessible name (a label, aria-label or text). */
const unlabelledControls = `[...document.querySelectorAll('#app input, #app select, #app textarea, #app button, .bar button')]
  .filter((e) => (e.labels === null || e.labels === undefined || e.labels.length === 0)
    && !e.getAttribute('aria-label') && !(e.tagName === 'BUTTON' && e.textContent.trim()))
  .map((e) => e.outerHTML.slice(0, 80))`;

/** Every request a page makes that leaves the mock's origin, and how it ended. */
function outsideRequests(page: Page, origin: string): Array<{ url: string; failure: string | undefined }> {
  const outside: Array<{ url: string; failure: string | undefined }> = [];
  const local = (url: string): boolean =>
    url.startsWith(origin) || url.startsWith('data:') || url.startsWith(`blob:${origin}`);
  page.on('requestfinished', (request) => {
    if (!local(request.url())) outside.push({ url: request.url(), failure: undefined });
  });
  page.on('requestfailed', (request) => {
    if (!local(request.url())) outside.push({ url: request.url(), failure: request.failure()?.errorText });
  });
  return outside;
}

describe.skipIf(executable === undefined)(
  'the pages in a real browser (Chromium)',
  { tags: ['slow'] },
  () => {
    let browser: Browser;
    const start = useMocks();
    const proxies = useProxies();
    const targets = useTargets();

    beforeAll(async () => {
      browser = await launchBrowser(executable as string);
    }, 60_000);
    afterAll(() => browser?.close());

    let integratorServer: { close(): Promise<void> } | undefined;
    afterEach(async () => {
      await integratorServer?.close();
      integratorServer = undefined;
    });

    /** Serves one page from 127.0.0.1 on a port of its own, as an integrator's development server would. */
    async function serveIntegratorPage(html: string): Promise<string> {
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(html);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      integratorServer = {
        close: () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      };
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    }

    /** Writes a screenshot to docs/images/ when asked (`npm run screenshots`), from the top unless `where` is given. */
    async function shot(page: Page, name: string, where?: string): Promise<void> {
      if (!takingScreenshots) return;
      if (where === undefined) await page.evaluate('window.scrollTo(0, 0)');
      else
        await page
          .locator(where)
          .first()
          .evaluate((e) => e.scrollIntoView({ block: 'start' }));
      mkdirSync(screenshots, { recursive: true });
      await page.screenshot({ path: new URL(`${name}.png`, screenshots).pathname });
    }

    async function openInspector(mock: Mock, hash = ''): Promise<Page & { errors: string[] }> {
      const page = await browser.page();
      await page.goto(`${mock.url}/__admin/ui${hash}`);
      await page.locator('.stream-live').waitFor();
      return page;
    }

    it('shows a request a client sends live, its diagnostics highlighted in the body, and never the API key', async () => {
      const mock = await start();
      const page = await browser.page();
      const outside = outsideRequests(page, mock.url);
      const opened = performance.now();
      await page.goto(`${mock.url}/__admin/ui`);
      await page.locator('.stream-live').waitFor();
      const live = performance.now();
      await service(mock, 'GET', { name: 'Customer A', userGroupId: 'customer-a' });
      const row = page.locator('.request-row').first();
      await row.waitFor();
      const shown = performance.now();
      console.log(
        `user-group-mock: inspector: opened -> live ${Math.round(live - opened)} ms; request sent -> shown ${Math.round(shown - live)} ms; opened -> request shown ${Math.round(shown - opened)} ms`,
      );
      expect(await row.getAttribute('aria-label')).toMatch(
        /GET, get-or-create, status 400, .* ms, Customer key, error [A-Z_]+, broke the contract \(2\)/,
      );

      await row.focus();
      await page.keyboard.press('Enter');
      const typo = page.locator('.line', { hasText: '"userGroupId"' });
      expect(await typo.getAttribute('class')).toContain('marked-error');
      expect(await typo.locator('.note').textContent()).toContain(
        'body has unknown field "userGroupId"; did you mean "user_group_id"?',
      );
      const whole = page.locator('.line').first();
      expect(await whole.getAttribute('class')).toContain('context-error');
      expect(await whole.locator('.note').textContent()).toContain(
        'must have required field "user_group_id"',
      );
      await page.getByRole('button', { name: 'show in body' }).nth(1).click();
      expect(await page.evaluate("document.activeElement.classList.contains('note')")).toBe(true);

      await service(mock, 'GET', { name: 'Customer A', user_group_id: 'customer-a' });
      await page.locator('.request-row').nth(1).waitFor();
      await page.getByLabel('Broke the contract only').check();
      await expect.poll(() => page.locator('.request-row').count()).toBe(1);
      await page.getByLabel('Broke the contract only').uncheck();
      await page.getByLabel('Text', { exact: true }).fill('nothing-like-this');
      await expect.poll(() => page.locator('.request-row').count()).toBe(0);
      await page.getByLabel('Text', { exact: true }).fill('');
      await page.getByLabel('Operation', { exact: true }).selectOption('updateUserGroup');
      await expect.poll(() => page.locator('.request-row').count()).toBe(0);
      await page.getByLabel('Operation', { exact: true }).selectOption('');
      await page.getByLabel('Status', { exact: true }).selectOption('2xx');
      await expect.poll(() => page.locator('.request-row').count()).toBe(1);
      await page.getByLabel('Status', { exact: true }).selectOption('');
      await service(mock, 'PUT', { user_group_id: 'customer-a', properties: { region: 'EU' } });
      await service(mock, 'POST', { current_token: 'f'.repeat(64) });
      await page.locator('.request-row').nth(3).waitFor();
      await page.locator('.request-row[data-id="1"]').click();
      await shot(page, 'inspector-requests');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('user-group-mock Inspector');
      // One format for times: the list's clock, with the date in the detail.
      const listed = (await page.locator('.request-row[data-id="1"] .time').textContent()) as string;
      expect(listed).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3}$/);
      expect(await page.locator('.detail .summary time').textContent()).toMatch(
        new RegExp(`^\\d{4}-\\d{2}-\\d{2} ${listed.replace('.', '\\.')}$`),
      );

      // Clearing the journal asks first, as Reset does; Cancel keeps it and gives focus back.
      await page.getByRole('button', { name: 'Clear journal…' }).click();
      // Preact renders the question after the click returns: wait for the focus rather than read it at once.
      await page.locator('button:focus', { hasText: 'Cancel' }).waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.locator('#clear-journal:focus').waitFor();
      expect(await mock.requests()).toHaveLength(4);
      await page.getByRole('button', { name: 'Clear journal…' }).click();
      await page.getByRole('button', { name: 'Yes, clear the journal' }).click();
      await page.getByRole('status').filter({ hasText: 'Cleared the journal.' }).waitFor();
      await page.getByText('No request yet.').waitFor();
      expect(await mock.requests()).toEqual([]);

      expect(await page.content()).not.toContain(customerKey);
      expect(outside).toEqual([]);
      expect(page.errors).toEqual([]);
    });

    it('on a phone, brings the chosen request into view with focus, and goes back to the list', async () => {
      const mock = await start();
      for (let i = 0; i < 6; i++)
        await service(mock, 'GET', { user_group_id: `customer-${i}`, name: `Customer ${i}` });
      const page = await openInspector(mock);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('.request-row').nth(5).waitFor();
      const row = page.locator('.request-row[data-id="2"]');
      await row.click();
      await page.locator('#detail:focus').waitFor();
      const top = await page.locator('.detail h2').evaluate((e) => e.getBoundingClientRect().top);
      expect(top).toBeGreaterThanOrEqual(0);
      expect(top).toBeLessThan(844);
      await shot(page, 'inspector-request-phone', '#detail');
      await page.getByRole('button', { name: 'Back to the list' }).click();
      await page.locator('.request-row[data-id="2"]:focus').waitFor();
      const rowTop = await row.evaluate((e) => e.getBoundingClientRect().top);
      expect(rowTop).toBeGreaterThanOrEqual(0);
      expect(rowTop).toBeLessThan(844);
      // Side by side there is nothing to bring into view: focus stays on the row.
      await page.setViewportSize({ width: 1280, height: 720 });
      await row.focus();
      await page.keyboard.press('Enter');
      expect(await page.evaluate('document.activeElement.dataset.id')).toBe('2');
      expect(await page.getByRole('button', { name: 'Back to the list' }).isVisible()).toBe(false);
      expect(page.errors).toEqual([]);
    });

    it("shows each row's group id and error code, and keeps the filters and the chosen request in the address", async () => {
      const mock = await start();
      await service(mock, 'GET', { user_group_id: 'customer-a', name: 'Customer A' });
      await call(mock.url, 'GET', '/api/user', {
        headers: { authorization: `Bearer ${customerKey}`, 'content-type': 'application/json' },
        body: { user_group_id: 'shop-1', name: 'Shop' },
      });
      await service(mock, 'GET', { name: 'No id' });
      const page = await openInspector(mock);
      await page.locator('.request-row').nth(2).waitFor();
      const about = (id: number) =>
        page.locator(`.request-row[data-id="${id}"] .about`).evaluate((e) => ({
          group: e.querySelector('.group-id')?.textContent ?? null,
          code: e.querySelector('.error-code')?.textContent ?? null,
        }));
      expect(await about(1)).toEqual({ group: 'customer-a', code: null });
      expect(await about(2)).toEqual({ group: 'shop-1', code: 'AUTH_BEARER' });
      expect(await about(3)).toEqual({ group: null, code: 'VALIDATION_FAILED' });
      expect(await page.locator('.request-row[data-id="2"]').getAttribute('aria-label')).toContain(
        'group shop-1, error AUTH_BEARER',
      );

      // Filters and the chosen request go into the address, as history entries.
      await page.getByLabel('Status', { exact: true }).selectOption('4xx');
      await expect.poll(() => page.locator('.request-row').count()).toBe(2);
      await page.locator('.request-row[data-id="2"]').click();
      await page.locator('.detail h2').waitFor();
      expect(new URL(page.url()).hash).toBe('#requests&status=4xx&id=2');
      // Its headers: the Bearer scheme shown, the key never.
      await page.locator('.headers summary').waitFor();
      expect(await page.locator('.headers').getAttribute('open')).not.toBeNull();
      expect(await page.locator('.header-list').textContent()).toContain(
        'Bearer ‹16 characters: the Customer key of tenant "default"›',
      );
      await shot(page, 'inspector-linked');
      await page.goBack();
      await page.getByText('Choose a request to see what was sent and answered.').waitFor();
      expect(new URL(page.url()).hash).toBe('#requests&status=4xx');
      await page.goBack();
      await expect.poll(() => page.locator('.request-row').count()).toBe(3);
      expect(await page.getByLabel('Status', { exact: true }).inputValue()).toBe('');
      await page.goForward();
      await expect.poll(() => page.locator('.request-row').count()).toBe(2);
      expect(await page.getByLabel('Status', { exact: true }).inputValue()).toBe('4xx');

      // A link opens with them: the filters set, the request's detail shown.
      const linked = await browser.page();
      await linked.goto(`${mock.url}/__admin/ui#requests&status=4xx&q=shop-1&id=2`);
      await linked.locator('.stream-live').waitFor();
      await linked.locator('.detail h2').waitFor();
      expect(await linked.getByLabel('Status', { exact: true }).inputValue()).toBe('4xx');
      expect(await linked.getByLabel('Text', { exact: true }).inputValue()).toBe('shop-1');
      await expect.poll(() => linked.locator('.request-row').count()).toBe(1);
      expect(await linked.locator('.request-row[data-id="2"]').getAttribute('aria-pressed')).toBe('true');
      expect(await linked.content()).not.toContain(customerKey);
      expect(page.errors).toEqual([]);
      expect(linked.errors).toEqual([]);
    });

    it('starts the operation at the same place in every row at 390 px, dark, whatever the method and key', async () => {
      const mock = await start();
      const tenant = (await admin(mock.url, 'POST', '/__admin/tenants')).body;
      const created = await service(mock, 'GET', { user_group_id: 'a', name: 'A' }, tenant.api_keys.Customer);
      await service(mock, 'GET', { user_group_id: 'b', name: 'B' }, tenant.api_keys.Testing);
      await service(mock, 'PUT', { user_group_id: 'a', name: 'A2' }, tenant.api_keys.Customer);
      await service(mock, 'POST', { current_token: created.body.user_group.token }, tenant.api_keys.Customer);
      await call(mock.url, 'DELETE', '/api/user', {
        headers: { authorization: `Token ${tenant.api_keys.Testing}` },
      });
      const page = await browser.page();
      await page.setViewportSize({ width: 390, height: 844 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.goto(`${mock.url}/__admin/ui#requests&tenant=${tenant.id}`);
      await page.locator('.stream-live').waitFor();
      await expect.poll(() => page.locator('.request-row').count()).toBe(5);
      const lefts = await page
        .locator('.request-row .op')
        .evaluateAll((cells) => cells.map((c) => Math.round(c.getBoundingClientRect().left)));
      const keys = await page.locator('.request-row .env').allTextContents();
      expect(keys).toEqual(expect.arrayContaining(['Customer', 'Testing']));
      expect(new Set(lefts).size, `operation cells start at ${lefts.join(', ')} px`).toBe(1);
      await shot(page, 'inspector-requests-phone-aligned-dark');
      expect(page.errors).toEqual([]);
    });

    it('switches to a tenant made by a test file, showing only its requests and groups', async () => {
      const mock = await start();
      const tenant = (await admin(mock.url, 'POST', '/__admin/tenants')).body;
      await service(mock, 'GET', { user_group_id: 'theirs', name: 'Theirs' }, tenant.api_keys.Testing);
      await service(mock, 'GET', { user_group_id: 'ours', name: 'Ours' });
      const page = await openInspector(mock);
      await page.locator('.request-row').first().waitFor();
      await expect.poll(() => page.locator('.request-row').count()).toBe(1);
      await page.getByLabel('Tenant', { exact: true }).selectOption(tenant.id);
      await page.locator('.request-row .env', { hasText: 'Testing' }).waitFor();
      await expect.poll(() => page.locator('.request-row').count()).toBe(1);
      await page.getByRole('link', { name: 'Groups' }).click();
      await page.getByLabel('Testing').check();
      await page.locator('table.groups th code', { hasText: 'theirs' }).waitFor();
      await expect.poll(() => page.locator('table.groups tbody tr').count()).toBe(1);
      expect(page.url()).toContain(`tenant=${tenant.id}`);
    });

    it('seeds a group through the form, checked against the document first, which the API then returns', async () => {
      const mock = await start();
      const page = await openInspector(mock, '#groups');
      await page.getByRole('button', { name: 'Seed group' }).click();
      expect(await page.locator('#seed-user_group_id-error').textContent()).toContain('must not be empty');
      await page.getByLabel('user_group_id').fill('customer-b');
      await page.getByLabel('Name').fill('Customer B');
      await page.getByLabel('Token', { exact: true }).fill('not-a-token');
      await page.getByLabel('Properties (JSON)').fill('{"region": "EU"');
      await page.getByRole('button', { name: 'Seed group' }).click();
      expect(await page.locator('#seed-token-error').textContent()).toMatch(/token/);
      expect(await page.locator('#seed-properties-error').textContent()).toContain('properties is not JSON');
      expect(await mock.groups()).toEqual([]);

      await page.getByLabel('Token', { exact: true }).fill('');
      await page.getByLabel('Properties (JSON)').fill('{"region": "EU"}');
      await page.getByRole('button', { name: 'Seed group' }).click();
      await page.locator('table.groups th code', { hasText: 'customer-b' }).waitFor();
      const [seeded] = await mock.groups();
      const fetched = await service(mock, 'GET', { user_group_id: 'customer-b', name: 'Customer B' });
      expect(fetched.body).toMatchObject({
        new_user_group: false,
        user_group: { token: seeded?.token, name: 'Customer B', properties: { region: 'EU' } },
      });
      await shot(page, 'inspector-groups');

      // Seeding it again is refused beside the form, until the form changes or another action succeeds.
      const refusal = page.locator('#seed-form .error, #seed-form .problems');
      await page.getByLabel('user_group_id').fill('customer-b');
      await page.getByLabel('Name').fill('Customer B');
      await page.getByRole('button', { name: 'Seed group' }).click();
      await refusal.first().waitFor();
      await page.getByLabel('Name').fill('Customer B again');
      await expect.poll(() => refusal.count()).toBe(0);
      await page.getByRole('button', { name: 'Seed group' }).click();
      await refusal.first().waitFor();

      // Rotating asks first, as Reset does: Cancel leaves the token working and focus on Rotate.
      await page.getByRole('button', { name: 'Rotate the token of customer-b' }).click();
      await page.locator('button:focus', { hasText: 'Cancel' }).waitFor();
      await page.keyboard.press('Escape');
      await page.locator('#rotate-customer-b:focus').waitFor();
      expect(await mock.token(seeded?.token as string)).toBeDefined();
      await page.getByRole('button', { name: 'Rotate the token of customer-b' }).click();
      await page.getByRole('button', { name: 'Yes, rotate customer-b' }).click();
      await page.getByRole('status').filter({ hasText: 'Rotated the token of customer-b' }).waitFor();
      expect(await mock.token(seeded?.token as string)).toBeUndefined();
      await expect.poll(() => refusal.count()).toBe(0);

      await page.getByRole('button', { name: 'Reset tenant…' }).click();
      await page.getByRole('button', { name: 'Yes, reset default' }).click();
      await page.getByRole('status').filter({ hasText: 'Reset tenant default' }).waitFor();
      expect(await mock.groups()).toEqual([]);
      expect(page.errors).toEqual([]);
    });

    it('plans a fault that makes the next API call fail, then lists and clears faults', async () => {
      const mock = await start();
      const page = await openInspector(mock, '#faults');
      await page.getByLabel('Status', { exact: true }).fill('200');
      await page.getByRole('button', { name: 'Plan fault' }).click();
      expect(await page.locator('#fault-status-error').textContent()).toContain('400');
      expect(await mock.faults()).toEqual([]);

      await page.getByLabel('Operation', { exact: true }).selectOption('getOrCreateUserGroup');
      await expect.poll(() => page.locator('#fault-status-error').count()).toBe(1); // another field changed: still true
      await page.getByLabel('Status', { exact: true }).fill('503');
      await expect.poll(() => page.locator('#fault-status-error').count()).toBe(0);
      const formTop = (): Promise<number> =>
        page.locator('#fault-form').evaluate((e) => e.getBoundingClientRect().top);
      const before = await formTop();
      await page.getByRole('button', { name: 'Plan fault' }).click();
      await page.locator('table.faults tbody tr').waitFor();
      await page
        .getByRole('status')
        .filter({ hasText: 'Planned fault 1: the next call of get-or-create will answer 503.' })
        .waitFor();
      expect(await formTop()).toBe(before); // the message moves nothing
      await shot(page, 'inspector-faults');
      const failed = await service(mock, 'GET', { user_group_id: 'a', name: 'A' });
      expect([failed.status, failed.body.error.code]).toEqual([503, 'INJECTED_FAULT']);
      await page.getByText('No fault is pending').waitFor();

      await page.getByLabel('Reset the connection (no answer)').check();
      await page.getByRole('button', { name: 'Plan fault' }).click();
      await page.locator('table.faults tbody tr').waitFor();
      expect(await mock.faults()).toMatchObject([
        { action: 'reset-connection', operationId: 'getOrCreateUserGroup' },
      ]);
      await page.getByRole('button', { name: 'Clear faults' }).click();
      await page.getByText('No fault is pending').waitFor();
      expect(await mock.faults()).toEqual([]);
      expect(page.errors).toEqual([]);
    });

    it('renders every operation of both documents in /docs and /docs/admin, loading nothing from elsewhere', async () => {
      const mock = await start();
      const page = await browser.page();
      const outside = outsideRequests(page, mock.url);
      const consoleErrors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      for (const [path, document] of [
        ['/docs', serviceDocument()],
        ['/docs/admin', adminDocument()],
      ] as const) {
        await page.goto(`${mock.url}${path}`);
        await page.locator('body[data-rendered="true"]').waitFor();
        for (const summary of summaries(document))
          expect(await page.locator('h2', { hasText: summary }).count(), summary).toBeGreaterThan(0);
      }
      await page.goto(`${mock.url}/docs`);
      await page.locator('body[data-rendered="true"]').waitFor();
      await expect.poll(() => page.getByText('undici.request').count()).toBeGreaterThan(1);
      await expect.poll(() => page.getByText('Browsers cannot send this request.').count()).toBe(1);
      // The samples above the reference: within the page (wrapped), reachable by keyboard, each with Copy.
      for (const width of [390, 800, 1280]) {
        await page.setViewportSize({ width, height: 800 });
        const sideways = await page.evaluate(
          "[...document.querySelectorAll('.samples pre')].map((p) => p.scrollWidth - p.clientWidth)",
        );
        expect(sideways, `samples at ${width}`).toEqual([0, 0]);
      }
      await page.setViewportSize({ width: 1280, height: 720 });
      expect(await page.locator('.samples pre').evaluateAll((pres) => pres.map((p) => p.tabIndex))).toEqual([
        0, 0,
      ]);
      await expect.poll(() => page.getByRole('region', { name: 'curl' }).count()).toBe(1);
      await page.locator('.samples button', { hasText: 'Copy' }).first().click();
      await page.locator('#copy-status', { hasText: /the curl sample/ }).waitFor();
      await page.locator('button[data-copy="fact-url"]').click();
      await page.locator('#copy-status', { hasText: /the mock URL/ }).waitFor();
      await shot(page, 'docs');
      await shot(page, 'docs-get-or-create', `h2:has-text("${summaries(serviceDocument())[0]}")`);
      // Not even the Redocly logo of Redoc's side menu, which its bundle takes from a CDN (the build replaces it).
      expect(outside).toEqual([]);
      expect(consoleErrors).toEqual([]);
      expect(page.errors).toEqual([]);
    });

    it('shows the group in the web component, the rotated-token card after a rotation, and follows its token', async () => {
      const mock = await start();
      const created = await service(mock, 'GET', {
        user_group_id: 'customer-a',
        name: 'Customer A',
        properties: { region: 'EU', plan: 'enterprise' },
        mapping: { '40': '213' },
      });
      const token = created.body.user_group.token as string;
      // The integrator's own development server, on another port: another origin.
      const integrator =
        await serveIntegratorPage(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Integrator's app</title><script type="module" src="${mock.url}/embed/component.js"></script></head>
<body style="font-family: system-ui; margin: 1.5rem; max-width: 46rem"><h1>Sales overview</h1>
<user-group-dashboard dashboard="sales-overview" token="${token}"></user-group-dashboard></body></html>`);
      const page = await browser.page();
      const outside = outsideRequests(page, mock.url);
      // Every dashboard-state event the host page hears, in order (the listener is in place before the component).
      await page.addInitScript(
        "window.heard = []; document.addEventListener('dashboard-state', (event) => window.heard.push(event.detail.outcome));",
      );
      const heard = async (): Promise<string[]> => {
        await new Promise((resolve) => setTimeout(resolve, 300)); // time for a second event, were one to come
        return (await page.evaluate('window.heard')) as string[];
      };
      await page.goto(integrator);
      const card = page.frameLocator('user-group-dashboard iframe').locator('h1');
      await card.filter({ hasText: 'Viewing as' }).waitFor();
      expect(await card.textContent()).toBe('Viewing as Customer A (customer-a, Customer)');
      await page.waitForFunction("document.querySelector('user-group-dashboard').outcome === 'viewing'");
      expect(await heard()).toEqual(['viewing']);
      await shot(page, 'embed');

      const rotated = await service(mock, 'POST', { current_token: token });
      await page.reload();
      await card.filter({ hasText: 'Token rotated' }).waitFor();
      expect(await page.frameLocator('user-group-dashboard iframe').locator('main').textContent()).toContain(
        "This token was rotated; fetch the group's current token.",
      );
      await shot(page, 'embed-rotated');

      const next = rotated.body.user_group.token as string;
      await page
        .locator('user-group-dashboard')
        .evaluate((element, token) => element.setAttribute('token', token), next);
      await card.filter({ hasText: 'Viewing as' }).waitFor();
      expect(await heard()).toEqual(['rotated', 'viewing']); // one event per card since the reload

      // The frame follows the card's height both ways: down to a shorter card, up again (on a phone's width).
      await page.setViewportSize({ width: 390, height: 844 });
      const frame = page.locator('user-group-dashboard iframe');
      const cardHeight = (): Promise<number> =>
        page
          .frameLocator('user-group-dashboard iframe')
          .locator('body')
          .evaluate((body) => body.getBoundingClientRect().height);
      /** Waits until the frame is as tall as its card (both taken from the host page, the card in the frame). */
      const fits = async (): Promise<void> => {
        await expect
          .poll(async () => Math.abs(((await frame.boundingBox())?.height ?? 0) - (await cardHeight())), {
            timeout: 5000,
          })
          .toBeLessThanOrEqual(1);
      };
      await fits();
      const tall = (await frame.boundingBox())?.height as number;
      await page
        .locator('user-group-dashboard')
        .evaluate((element) => element.setAttribute('token', 'e'.repeat(64)));
      await card.filter({ hasText: 'Unknown token' }).waitFor();
      await fits();
      expect((await frame.boundingBox())?.height).toBeLessThan(tall);
      await page
        .locator('user-group-dashboard')
        .evaluate((element, token) => element.setAttribute('token', token), next);
      await card.filter({ hasText: 'Viewing as' }).waitFor();
      await fits();
      expect((await frame.boundingBox())?.height).toBe(tall);
      expect(outside.filter((r) => !r.url.startsWith(integrator))).toEqual([]);
      expect(page.errors).toEqual([]);
    });

    it("shows an exchange through the proxy that a wrong provider answered as the provider's fault, and filters by fault", async () => {
      const upperCaseToken = await targets((_req, res) =>
        answerJson(res, 200, {
          success: 1,
          new_user_group: true,
          user_group: {
            team_id: 1,
            token: 'ABCDEF'.padEnd(64, '0'),
            name: 'A',
            provided_id: 'a',
            properties: null,
          },
        }),
      );
      const proxy = await proxies({ target: upperCaseToken.url });
      const page = await browser.page();
      const outside = outsideRequests(page, proxy.url);
      await page.goto(`${proxy.url}/__admin/ui`);
      await page.locator('.stream-live').waitFor();
      expect(await page.locator('.brand').textContent()).toContain('validating proxy');
      expect(await page.locator('.tabs a').allTextContents()).toEqual(['Requests 0']);
      await expect.poll(() => page.locator('.tenant-picker').count()).toBe(0);

      await call(proxy.url, 'GET', '/api/user', { body: { name: 'A', user_group_id: 'a' } });
      const row = page.locator('.request-row').first();
      await row.waitFor();
      // A get-or-create's answer names no environment: the key's is not known yet, and the page says why.
      expect(await row.getAttribute('aria-label')).toMatch(
        /GET, get-or-create, status 200, .* ms, a key of an environment not shown yet, group a, broke the contract \(1\), the provider's fault$/,
      );
      expect(await row.locator('.env').textContent()).toBe('key ?');
      expect(await row.locator('.env').getAttribute('title')).toContain(
        "a get-or-create's answer names none",
      );
      expect(await page.locator('#key-legend').textContent()).toContain('The key itself is never kept.');
      expect(await row.locator('.badge').textContent()).toBe('✗ provider');
      await row.click();
      const verdict = page.locator('.verdict');
      expect(await verdict.locator('p').first().textContent()).toBe(
        "✗ The provider's answer broke the contract: 1 problem.",
      );
      expect(await verdict.locator('.fault').textContent()).toContain("The provider's fault");
      expect(await verdict.locator('.diagnostics li').textContent()).toContain('/body/user_group/token');
      const answerToken = page.locator('section[aria-labelledby^="res-"] .line', { hasText: '"token"' });
      expect(await answerToken.getAttribute('class')).toContain('marked-error');
      await expect.poll(() => page.locator('section[aria-labelledby^="req-"] .note').count()).toBe(0);

      await call(proxy.url, 'GET', '/api/user', { body: { name: 'A' } });
      await page.locator('.request-row').nth(1).waitFor();
      expect(await page.locator('.request-row .badge').allTextContents()).toEqual(['✗ both', '✗ provider']);
      await shot(page, 'inspector-proxy');
      // The second request lacks user_group_id and its answer breaks the contract too: both sides' fault, listed
      // under either side's filter.
      await page.getByLabel('Fault', { exact: true }).selectOption('provider');
      await expect.poll(() => page.locator('.request-row').count()).toBe(2);
      await page.getByLabel('Fault', { exact: true }).selectOption('client');
      await expect.poll(() => page.locator('.request-row').count()).toBe(1);
      await expect
        .poll(() => page.locator('.request-row').getAttribute('aria-label'))
        .toContain("both the client's and the provider's fault");
      await page.locator('.request-row').click();
      expect(await page.locator('.verdict p').first().textContent()).toMatch(
        /^✗ The request and the provider’s answer both broke the contract: \d+ problems\.$/,
      );
      expect(await page.locator('.verdict .fault').textContent()).toContain("Both sides' fault");
      expect(new URL(page.url()).hash).toMatch(/^#requests&fault=client&id=\d+$/);

      expect(await page.content()).not.toContain(customerKey);
      expect(outside).toEqual([]);
      expect(page.errors).toEqual([]);
    });

    it('works with --admin-key: the inspector asks for it and shows nothing without it', async () => {
      const mock = await start({ adminKey: 'admin-secret' });
      const created = await service(mock, 'GET', { user_group_id: 'customer-a', name: 'Customer A' });
      const page = await browser.page();
      await page.goto(`${mock.url}/__admin/ui`);
      await page.getByRole('heading', { name: 'Admin key' }).waitFor();
      await expect.poll(() => page.locator('.request-table, .tenant-picker, .tabs').count()).toBe(0);
      expect(await page.content()).not.toContain('customer-a');
      await shot(page, 'inspector-admin-key');
      await page.getByLabel('Admin key').fill('wrong');
      await page.getByRole('button', { name: 'Open the inspector' }).click();
      await page.getByText('The mock did not accept this key').waitFor();
      await page.getByLabel('Admin key').fill('admin-secret');
      await page.getByRole('button', { name: 'Open the inspector' }).click();
      await page.locator('.stream-live').waitFor();
      await page.locator('.request-row').first().waitFor();

      await page.goto(`${mock.url}/docs`);
      await page.locator('body[data-rendered="true"]').waitFor();
      await expect.poll(() => page.getByText('The API keys are not shown').count()).toBe(1);
      await page.goto(`${mock.url}/embed/sales?token=${created.body.user_group.token}`);
      expect(await page.locator('h1').textContent()).toBe('Viewing as Customer A (customer-a, Customer)');
      expect(page.errors).toEqual([]);
    });

    it('keeps every page labelled and within the width of a 1280x720 and a 390x844 screen, light and dark', async () => {
      const mock = await start();
      const created = await service(mock, 'GET', {
        user_group_id: 'customer-a-with-a-rather-long-identifier',
        name: 'Customer A',
        properties: { region: 'EU', plan: 'enterprise', seats: 250 },
        mapping: { '40': '213', '134': '386' },
      });
      await service(mock, 'GET', { name: 'Customer B', userGroupId: 'customer-b' });
      await mock.injectFault({ status: 503, operationId: 'rotateUserGroupToken' });
      const token = created.body.user_group.token as string;
      const pages = [
        '/__admin/ui#requests',
        '/__admin/ui#groups',
        '/__admin/ui#faults',
        '/docs',
        `/embed/sales?token=${token}`,
      ];
      const page = await browser.page();
      for (const [width, height] of [
        [1280, 720],
        [390, 844],
      ] as const) {
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.setViewportSize({ width, height });
          await page.emulateMedia({ colorScheme });
          for (const path of pages) {
            await page.goto(`${mock.url}${path}`);
            if (path.startsWith('/__admin/ui')) await page.locator('.stream-live').waitFor();
            if (path === '/__admin/ui#requests') await page.locator('.request-row.broke').click();
            if (path === '/docs') await page.locator('body[data-rendered="true"]').waitFor();
            const where = `${path} at ${width}x${height}, ${colorScheme}`;
            const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
            expect(overflow, where).toBeLessThanOrEqual(0);
            const unlabelled = await page.evaluate(unlabelledControls);
            expect(unlabelled, where).toEqual([]);
            if (path.startsWith('/__admin/ui#requests') && colorScheme === 'dark')
              await shot(page, width === 390 ? 'inspector-requests-phone-dark' : 'inspector-requests-dark');
          }
        }
      }
      expect(page.errors).toEqual([]);
    });
  },
);
