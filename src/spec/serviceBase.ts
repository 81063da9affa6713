import { operations } from './operations.js';

/**
 * A service's base URL (the proxy's and conform's `--target`), or what is wrong with it: not http(s), a query, or a
 * path of the document at its end (`operationPathInBase`). `name` is how the caller names it.
 */
export function serviceBaseUrl(text: string, name: string): URL | string {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '')
    return `${name} "${text}" is not an http(s) base URL; give the service's base, e.g. https://staging.example.com`;
  return operationPathInBase(url, name) ?? url;
}

/**
 * What is wrong with a service's base URL that ends in a path of the document (`/api/user`), else undefined. Every
 * call appends that path to the base, so such a base (a URL copied from a request) would send each call to
 * `/api/user/api/user`, and the service's 404s would read as its faults. `name` is how the caller names the URL
 * (`--target`, `--provider-base-url`).
 */
export function operationPathInBase(url: URL, name: string): string | undefined {
  const path = url.pathname.replace(/\/+$/, '');
  const operationPath = operations().find((operation) => path.endsWith(operation.path))?.path;
  if (operationPath === undefined) return undefined;
  const base = new URL(url.href);
  base.pathname = path.slice(0, -operationPath.length) || '/';
  return `${name} "${url.href}" ends in ${operationPath}, the path each call adds to the base URL (the calls would go to ${path}${operationPath}); give the service's base URL, e.g. ${base.href.replace(/\/$/, '')}`;
}
