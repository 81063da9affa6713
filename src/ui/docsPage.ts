import type { OpenAPIV3_1 } from 'openapi-types';
import { listOperations } from '../spec/operations.js';
import { type CodeSample, type MockFacts, referenceDocument } from './codeSamples.js';
import { escapeHtml, jsonInScript, page } from './html.js';

export type Reference = 'service' | 'admin';

const titles: Readonly<Record<Reference, string>> = {
  service: 'User Group Service API',
  admin: 'Admin API of user-group-mock',
};

/** A value to copy, with its button. */
function fact(id: string, label: string, value: string): string {
  return `<div class="fact"><span class="label" id="${id}-label">${escapeHtml(label)}</span><code id="${id}">${escapeHtml(value)}</code>${copyButton(
    id,
    label.replace(/^(Mock|Proxy) /, (word) => word.toLowerCase()),
  )}</div>`;
}

/** The Copy button of the element `id`, described by its label (`${id}-label`); `name` is what the status says was copied. */
const copyButton = (id: string, name: string): string =>
  `<button type="button" class="copy" data-copy="${id}" data-copy-name="${escapeHtml(name)}" aria-describedby="${id}-label">Copy</button>`;

/**
 * The facts of this mock: its URL, and the keys a client sends (the admin key is never shown). A validating proxy
 * has no keys of its own: it forwards the target's.
 */
function factsSection(which: Reference, facts: MockFacts): string {
  const proxy = facts.server === 'proxy';
  const keys = proxy
    ? '<p class="note">This is a validating proxy: it forwards each call to its target, so the API keys are the target\'s. Send the ones the service gave you.</p>'
    : facts.keys === undefined
      ? `<p class="note">The API keys are not shown: this mock was started with <code>--admin-key</code>. ${
          facts.defaultKeys
            ? 'No <code>--api-key</code> was given, so the default keys apply: the ones <code>user-group-mock serve --help</code> lists.'
            : 'Use the values given with <code>--api-key</code>.'
        }</p>`
      : facts.keys.map((k, i) => fact(`fact-key-${i + 1}`, `${k.environment} key`, k.key)).join('');
  const admin =
    which === 'admin'
      ? `<p class="note">${
          facts.adminKeySet
            ? 'Every admin call needs the <code>--admin-key</code> value in <code>X-Admin-Key</code>.'
            : 'No admin key is set: admin calls need no <code>X-Admin-Key</code>.'
        } Without <code>Authorization</code> a call acts on the default tenant; with a tenant's key, on that tenant.</p>`
      : '';
  const label = proxy ? 'Proxy URL' : 'Mock URL';
  return `<section class="facts" aria-label="${proxy ? 'This proxy' : 'This mock'}">${fact('fact-url', label, facts.url)}${keys}</section>${admin}`;
}

/** Where the document has a GET with a body: why a browser cannot send it, and the samples to run instead. */
function getWithBodySection(document: OpenAPIV3_1.Document): string {
  const operation = listOperations(document).find((o) => o.method === 'GET' && o.requestSchema !== undefined);
  if (operation === undefined) return '';
  const item = document.paths?.[operation.path]?.get as { 'x-codeSamples'?: CodeSample[] } | undefined;
  const samples = item?.['x-codeSamples'] ?? [];
  return `<section class="get-body" aria-labelledby="get-body-title">
<h2 id="get-body-title">Browsers cannot send a GET with a body</h2>
<p>${escapeHtml(operation.shortName)} is <code>GET ${escapeHtml(operation.path)}</code> with a JSON body. <code>fetch</code> and <code>XMLHttpRequest</code> refuse or drop a GET body, so this reference offers no "try it" button. Send it from a terminal or from Node:</p>
<div class="samples">${samples
    .map((s, i) => {
      const id = `sample-${i + 1}`;
      // Focusable, so that a keyboard reaches it (and scrolls it, should a line still not fit).
      return `<figure><div class="sample-head"><figcaption id="${id}-label">${escapeHtml(s.label)}</figcaption>${copyButton(id, `${s.label} sample`)}</div><pre tabindex="0" role="region" aria-labelledby="${id}-label"><code id="${id}">${escapeHtml(s.source)}</code></pre></figure>`;
    })
    .join('')}</div>
</section>`;
}

/** The reference page of one document: the mock's facts above, the document rendered by Redoc below. */
export function docsPage(which: Reference, source: OpenAPIV3_1.Document, facts: MockFacts): string {
  const document = referenceDocument(source, which, facts);
  const link = (href: string, text: string, current: boolean): string =>
    `<a href="${href}"${current ? ' aria-current="page"' : ''}>${text}</a>`;
  const body = `<header class="bar">
<div class="bar-top"><p class="brand">user-group-mock</p>
<nav aria-label="Pages">${link('/docs', 'Service API', which === 'service')}${link('/docs/admin', 'Admin API', which === 'admin')}${link('/__admin/ui', 'Inspector', false)}</nav></div>
<h1>${escapeHtml(titles[which])}</h1>
${factsSection(which, facts)}
${getWithBodySection(document)}
<p class="status" role="status" aria-live="polite" id="copy-status"></p>
</header>
<div id="reference" data-reference="${which}"><p class="loading">Rendering the reference…</p></div>
<script type="application/json" id="openapi">${jsonInScript(document)}</script>`;
  return page({
    title: `${titles[which]} · user-group-mock`,
    styles: ['/docs/assets/docs.css'],
    scripts: ['/docs/assets/redoc.standalone.js', '/docs/assets/docs.js'],
    body,
  });
}
