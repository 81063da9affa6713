import { describe, expect, it } from 'vitest';
import { call, jsonHeaders, useMocks } from '../../support/http.js';
import { useProxies } from '../../support/proxy.js';

const mocks = useMocks();
const proxies = useProxies();

/** The OpenAPI document a reference page renders (written into the page). */
const documentOf = (html: string) =>
  JSON.parse(/<script type="application\/json" id="openapi">(.*?)<\/script>/s.exec(html)?.[1] ?? 'null');

describe("the proxy's browser pages", () => {
  it.each(['/embed/sales-overview?token=TOKEN', '/embed/component.js', '/embed/assets/embed.js', '/embed'])(
    '%s answers 404 saying the embed preview is the mock’s, even for a token the target issued',
    async (page) => {
      const target = await mocks();
      const proxy = await proxies({ target: target.url });
      const issued = await call(proxy.url, 'GET', '/api/user', {
        headers: jsonHeaders(),
        body: { name: 'Sales', user_group_id: 'sales' },
      });
      const token = issued.body.user_group.token as string;

      const answer = await call(proxy.url, 'GET', page.replace('TOKEN', token), { headers: {} });

      expect(answer.status).toBe(404);
      expect(answer.body.success).toBe(0);
      expect(answer.body.error.code).toBe('ROUTE_NOT_FOUND');
      expect(answer.body.error.message).toBe(
        `no page at "${page.split('?')[0]}": the embed preview is the mock's, and this is a validating proxy, which keeps no groups, so it cannot tell which group a token identifies (its target issued the token). For the preview, run user-group-mock serve; the browser pages here are /__admin/ui, /docs, /docs/admin`,
      );
      expect(await proxy.requests()).toHaveLength(1); // the page is not an exchange
    },
  );

  it('answers a browser asking for /favicon.ico with 204, not forwarded and not journaled', async () => {
    const target = await mocks();
    const proxy = await proxies({ target: target.url });
    const answer = await call(proxy.url, 'GET', '/favicon.ico', { headers: {} });
    expect(answer.status).toBe(204);
    expect(await proxy.requests()).toEqual([]);
    expect(await target.requests()).toEqual([]);
  });

  it('names only its own pages for a page it does not have', async () => {
    const proxy = await proxies({ target: (await mocks()).url });
    const answer = await call(proxy.url, 'GET', '/docs/nothing', { headers: {} });
    expect(answer.status).toBe(404);
    expect(answer.body.error.message).toBe(
      'no page at "/docs/nothing"; the browser pages are /__admin/ui, /docs, /docs/admin',
    );
  });

  it.each(['/docs', '/docs/admin'])(
    '%s labels its URL as the proxy’s and says the API keys are the target’s',
    async (path) => {
      const proxy = await proxies({ target: (await mocks()).url });
      const page = await call(proxy.url, 'GET', path, { headers: {} });
      expect(page.status).toBe(200);
      expect(page.text).toContain(
        `<span class="label" id="fact-url-label">Proxy URL</span><code id="fact-url">${proxy.url}</code>`,
      );
      expect(page.text).not.toContain('Mock URL');
      expect(page.text).toContain("so the API keys are the target's. Send the ones the service gave you.");
      expect(documentOf(page.text).servers).toEqual([
        { url: proxy.url, description: 'this validating proxy' },
      ]);
    },
  );
});
