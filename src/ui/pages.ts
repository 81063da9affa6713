import type { IncomingMessage, ServerResponse } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { adminDocument, documentIds } from '../admin/adminDocument.js';
import { defaultTenantId } from '../domain/model.js';
import { type ApiError, apiError } from '../errors.js';
import type { PageHandler } from '../http/app.js';
import { internalError } from '../http/internalError.js';
import { send } from '../http/respond.js';
import { errorReply } from '../pipeline/answer.js';
import { type ApiKey, defaultApiKeys } from '../runtime/keyRing.js';
import type { Log } from '../runtime/log.js';
import { serviceDocument } from '../spec/loadDocument.js';
import { operations } from '../spec/operations.js';
import { pathTemplate } from '../spec/pathTemplate.js';
import { errorAt } from '../validate/diagnostic.js';
import { type Asset, AssetStore, asset, sendAsset } from './assets.js';
import type { MockFacts } from './codeSamples.js';
import { docsPage, type Reference } from './docsPage.js';
import { embedPage } from './embedPage.js';
import type { EmbedOutcome, EmbedRequest } from './embedToken.js';
import { contentSecurityPolicy, jsonInScript, page } from './html.js';
import { inlineReferences } from './inlineReferences.js';

const common = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};
const ownPage = {
  ...common,
  'content-security-policy': contentSecurityPolicy(),
  'x-frame-options': 'DENY',
};
/** Redoc styles its elements inline (styled-components) and searches in a worker it makes from a blob. */
const referencePage = {
  ...ownPage,
  'content-security-policy': contentSecurityPolicy({
    'style-src': "'self' 'unsafe-inline'",
    'worker-src': 'blob:',
  }),
};
/** The embed preview is made to be framed by any page (the web component's iframe). */
const framedPage = { ...common, 'content-security-policy': contentSecurityPolicy({ 'frame-ancestors': '' }) };
/** The web component is loaded as a module script by the integrator's page, from another origin. */
const crossOriginScript = {
  ...common,
  'access-control-allow-origin': '*',
  'cross-origin-resource-policy': 'cross-origin',
};

const htmlType = 'text/html; charset=utf-8';

/** The built files each URL serves (the file its last segment names), with its headers. */
const files: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '/__admin/ui/assets/inspector.js': common,
  '/__admin/ui/assets/inspector.css': common,
  '/docs/assets/docs.js': common,
  '/docs/assets/docs.css': common,
  '/docs/assets/redoc.standalone.js': common,
  '/embed/component.js': crossOriginScript,
  '/embed/assets/embed.js': common,
  '/embed/assets/embed.css': common,
};

type PagesServer = MockFacts['server'];

/** What the browser pages need of the server that serves them, the mock or the validating proxy. */
export interface PagesHost {
  readonly logger: Log;
  /** The admin key, when set: the API reference then hides the API keys (the pages are served without it). */
  readonly adminKey: string | undefined;
  /**
   * The default tenant's API keys (those the server was started with), shown on the API reference when no admin key
   * is set; none on the proxy, which holds no keys.
   */
  readonly apiKeys: readonly ApiKey[];
  /**
   * What the embed preview makes of a token (the mock's `resolveEmbed` over its store), or the error to answer when
   * it cannot tell (a store out of reach). None: the server has no embed preview (the proxy, which keeps no groups).
   */
  readonly resolveEmbed?: (request: EmbedRequest) => Promise<EmbedOutcome | ApiError>;
}

/**
 * The inspector's page; the service's operations (ids, short names) are written into it from the document, and
 * which server it is on. The proxy's target is not: the pages are served without the admin key.
 */
function inspectorPage(server: PagesServer): Asset {
  return asset(
    htmlType,
    page({
      title: 'Inspector · user-group-mock',
      styles: ['/__admin/ui/assets/inspector.css'],
      modules: ['/__admin/ui/assets/inspector.js'],
      body: `<div id="app"><p class="boot">Loading the inspector…</p><noscript>The inspector needs JavaScript.</noscript></div>
<script type="application/json" id="operations">${jsonInScript(operations(), ['operationId', 'shortName', 'method'])}</script>
<script type="application/json" id="server">${jsonInScript({ kind: server })}</script>`,
    }),
  );
}

interface Served {
  readonly file: Asset;
  readonly headers: Readonly<Record<string, string>>;
  readonly status?: number;
}

const isPagePath = (path: string): boolean => /^\/(__admin\/ui|docs|embed)(\/|$)/.test(path);

const embedPath = pathTemplate('/embed/{dashboard_id}');

/**
 * The browser pages (`pagePaths`), from the built files (nothing is fetched from elsewhere). They need no
 * admin key: they hold no data of the mock (the inspector's comes from the admin API, with its key).
 */
export function createPages(
  host: PagesHost,
  assets = new AssetStore(),
  server: PagesServer = 'mock',
): PageHandler {
  const references = new Map<string, Asset>();
  let inspector: Asset | undefined;

  function reference(req: IncomingMessage, which: Reference): Asset {
    const url = `http://${hostOf(req)}`;
    const cacheKey = `${which} ${url}`;
    let found = references.get(cacheKey);
    if (found === undefined) {
      const facts: MockFacts = {
        server,
        url,
        keys: host.adminKey === undefined ? host.apiKeys : undefined,
        defaultKeys: sameKeys(host.apiKeys, defaultApiKeys),
        adminKeySet: host.adminKey !== undefined,
      };
      const document =
        which === 'service'
          ? serviceDocument()
          : inlineReferences(
              adminDocument(),
              new Map([[documentIds.service, { document: serviceDocument(), prefix: 'Service' }]]),
            );
      found = asset(htmlType, docsPage(which, document, facts));
      if (references.size >= 8) references.clear();
      references.set(cacheKey, found);
    }
    return found;
  }

  /** What a page path answers: a file with its headers (and status), or an error. */
  function answer(req: IncomingMessage, path: string): Served | ApiError | Promise<Served | ApiError> {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') return notAllowed(method, path);
    if (server === 'proxy' && path.startsWith('/embed')) return embedOnProxy(path);
    const headers = files[path];
    if (headers !== undefined) {
      const name = path.slice(path.lastIndexOf('/') + 1);
      const built = assets.get(name);
      return built === undefined ? notBuilt(name) : { file: built, headers };
    }
    if (path === '/__admin/ui' || path === '/__admin/ui/') {
      inspector ??= inspectorPage(server);
      return { file: inspector, headers: ownPage };
    }
    if (path === '/docs' || path === '/docs/')
      return { file: reference(req, 'service'), headers: referencePage };
    if (path === '/docs/admin') return { file: reference(req, 'admin'), headers: referencePage };
    const dashboard = embedPath.match(path)?.dashboard_id;
    const { resolveEmbed } = host;
    if (dashboard === undefined || dashboard === 'assets' || resolveEmbed === undefined)
      return noPage(path, server);
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    const request = {
      token: query.get('token') ?? undefined,
      tenant: query.get('tenant') || defaultTenantId,
      environment: query.get('environment') || 'Customer',
    };
    return resolveEmbed(request).then((outcome) => {
      if ('code' in outcome) return outcome;
      const rendered = embedPage(dashboard, request, outcome);
      return { file: asset(htmlType, rendered.html), headers: framedPage, status: rendered.status };
    });
  }

  /**
   * Answers a page path, then logs it. Every page goes the same way, whether its answer is at hand or waits for the
   * database (the embed preview on PostgreSQL); a bug while answering is a 500 logged with its stack, never an
   * exception out of the request listener or an unhandled rejection.
   */
  async function serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    try {
      const served = await answer(req, path);
      if ('file' in served) sendAsset(req, res, served.file, served.headers, served.status);
      else send(res, errorReply(served));
    } catch (error) {
      send(res, errorReply(internalError(host, error as Error)));
    }
    const method = req.method ?? 'GET';
    host.logger.info({ method, path, status: res.statusCode }, `${method} ${path} ${res.statusCode}`);
  }

  return (req, res, path) => {
    if (!isPagePath(path)) return false;
    void serve(req, res, path);
    return true;
  };
}

/** The host the browser used, as the pages show it; the socket's own address when the header is unusable. */
function hostOf(req: IncomingMessage): string {
  const host = req.headers.host;
  if (host !== undefined && /^[A-Za-z0-9.:[\]-]{1,255}$/.test(host)) return host;
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

/** The browser pages a server has: a validating proxy has no embed preview (it keeps no groups to show). */
export const pagePaths = (server: PagesServer): readonly string[] =>
  server === 'proxy'
    ? ['/__admin/ui', '/docs', '/docs/admin']
    : ['/__admin/ui', '/docs', '/docs/admin', '/embed/{dashboard_id}?token=…', '/embed/component.js'];

const notFound = (message: string): ApiError => errorAt('ROUTE_NOT_FOUND', '/path', message);

function notAllowed(method: string, path: string): ApiError {
  const message = `${method} is not allowed on ${path}: the browser pages answer GET and HEAD`;
  return errorAt('METHOD_NOT_ALLOWED', '/method', message, { allow: 'GET, HEAD' });
}

function noPage(path: string, server: PagesServer): ApiError {
  return notFound(`no page at "${path}"; the browser pages are ${pagePaths(server).join(', ')}`);
}

function embedOnProxy(path: string): ApiError {
  return notFound(
    `no page at "${path}": the embed preview is the mock's, and this is a validating proxy, which keeps no groups, so it cannot tell which group a token identifies (its target issued the token). For the preview, run user-group-mock serve; the browser pages here are ${pagePaths('proxy').join(', ')}`,
  );
}

function notBuilt(name: string): ApiError {
  return apiError(
    'PAGES_NOT_BUILT',
    `the browser pages are not built (dist/ui/public/${name} is missing); run "npm run build" in the user-group-mock package`,
  );
}

/** Whether two key lists hold the same keys for the same environments, in any order. */
const sameKeys = (a: readonly ApiKey[], b: readonly ApiKey[]): boolean =>
  isDeepStrictEqual(new Set(a.map(keyText)), new Set(b.map(keyText)));

const keyText = (k: ApiKey): string => `${k.environment} ${k.key}`;
