/** Text as HTML content or a quoted attribute value. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON inside `<script type="application/json">` (its objects' `keys` only), no `</script>` in it: `<` escaped. */
export const jsonInScript = (value: unknown, keys?: string[]): string =>
  JSON.stringify(value, keys).replaceAll('<', '\\u003c');

/** A token as the pages show it, its ends only (`3f2a9c…e81b04`). */
export const shortToken = (token: string): string =>
  token.length > 14 ? `${token.slice(0, 6)}…${token.slice(-6)}` : token;

interface PageParts {
  readonly title: string;
  readonly styles: readonly string[];
  /** Classic script URLs, run in order at the end of the body. */
  readonly scripts?: readonly string[];
  /** Module script URLs (deferred). */
  readonly modules?: readonly string[];
  /** The body's content, already HTML. */
  readonly body: string;
}

/** A whole page: no inline script or style, so that the Content-Security-Policy can forbid both. */
export function page(parts: PageParts): string {
  const styles = parts.styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('');
  const modules = (parts.modules ?? [])
    .map((src) => `<script type="module" src="${escapeHtml(src)}"></script>`)
    .join('');
  const scripts = (parts.scripts ?? []).map((src) => `<script src="${escapeHtml(src)}"></script>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(parts.title)}</title>
${styles}${modules}
</head>
<body>
${parts.body}
${scripts}
</body>
</html>
`;
}

/** The Content-Security-Policy of a page: only this origin, nothing from elsewhere. */
export function contentSecurityPolicy(extra: Readonly<Record<string, string>> = {}): string {
  const directives: Record<string, string> = {
    'default-src': "'none'",
    'script-src': "'self'",
    'style-src': "'self'",
    'img-src': "'self' data:",
    'font-src': "'self'",
    'connect-src': "'self'",
    'base-uri': "'none'",
    'form-action': "'none'",
    'frame-ancestors': "'none'",
    ...extra,
  };
  return Object.entries(directives)
    .filter(([, value]) => value !== '')
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');
}
