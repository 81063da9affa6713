// Renders the OpenAPI document written into the page (#openapi) with Redoc's standalone bundle, loaded before this
// script from the mock itself; wires the copy buttons of the mock's URL and keys.
// A script of its own, bundled as an IIFE: nothing it declares reaches the page's global scope.
import { copyText } from './clipboard.js';

declare const Redoc: {
  init(spec: unknown, options: object, element: HTMLElement | null, done: () => void): void;
};

const system = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
const mono = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';
const dark = window.matchMedia('(prefers-color-scheme: dark)').matches;

const lightTheme = {
  typography: { fontFamily: system, headings: { fontFamily: system }, code: { fontFamily: mono } },
  colors: { primary: { main: '#1f5fbf' } },
  sidebar: { backgroundColor: '#f4f6f8' },
  rightPanel: { backgroundColor: '#1f2733' },
};

const darkTheme = {
  typography: {
    ...lightTheme.typography,
    code: { fontFamily: mono, color: '#ffb4a9', backgroundColor: '#2a2f37' },
    links: { color: '#8ab4ff' },
  },
  colors: {
    primary: { main: '#8ab4ff' },
    text: { primary: '#e6e9ee', secondary: '#b8c0cc' },
    border: { dark: '#4a5361', light: '#343b46' },
    gray: { 50: '#1d2229', 100: '#262c34' },
    http: { get: '#6cc070', put: '#d9a441', post: '#6fa8ff', delete: '#ef6b6b' },
  },
  schema: {
    nestedBackground: '#1d2229',
    typeNameColor: '#b8c0cc',
    typeTitleColor: '#b8c0cc',
    linesColor: '#4a5361',
  },
  sidebar: { backgroundColor: '#15191e', textColor: '#e6e9ee', activeTextColor: '#8ab4ff' },
  rightPanel: { backgroundColor: '#0d1014', textColor: '#e6e9ee' },
  fab: { backgroundColor: '#262c34', color: '#e6e9ee' },
};

const spec = JSON.parse(document.getElementById('openapi')?.textContent ?? '{}') as unknown;
const target = document.getElementById('reference');
Redoc.init(
  spec,
  {
    theme: dark ? darkTheme : lightTheme,
    hideDownloadButton: true,
    expandResponses: '200,201',
    jsonSampleExpandLevel: 4,
    sortRequiredPropsFirst: true,
    nativeScrollbars: true,
    hideLoading: true,
  },
  target,
  () => {
    document.body.dataset.rendered = 'true';
  },
);

const status = document.getElementById('copy-status');
for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const copied = await copyText(document.getElementById(button.dataset.copy ?? '')?.textContent ?? '');
    const label = button.dataset.copyName ?? 'value';
    if (status !== null)
      status.textContent = copied ? `Copied the ${label}.` : `Select the ${label} and copy it.`;
  });
}
