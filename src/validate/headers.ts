import { parse as parseContentType } from 'content-type';
import type { ApiError } from '../errors.js';
import { failure, ok, type Result } from '../result.js';
import { type Diagnostic, diagnostic, errorAt } from './diagnostic.js';

export type HeaderValue = string | readonly string[] | undefined;
export type HeaderBag = Readonly<Record<string, HeaderValue>>;

const authPath = '/headers/authorization';
const tokenForm = '"Authorization: Token <API_KEY>"';

/** The API key of a well-formed `Authorization: Token <API_KEY>`, or the error naming the mistake. */
export function readApiKey(value: HeaderValue): Result<string> {
  if (Array.isArray(value) && value.length > 1) {
    return fail(
      'AUTH_DUPLICATE',
      `the request carries ${value.length} Authorization headers; send exactly one, ${tokenForm}`,
    );
  }
  const header = (Array.isArray(value) ? value[0] : value) as string | undefined;
  if (header === undefined) return fail('AUTH_MISSING', `Authorization header is missing; send ${tokenForm}`);
  if (header.trim() === '')
    return fail(
      'AUTH_MISSING',
      `Authorization header is empty (sent with no value, as when the variable meant to hold the key is unset); send ${tokenForm}`,
    );
  const match = /^(\S+)(?:[ \t]+(.*))?$/.exec(header.trim());
  const scheme = match?.[1] ?? '';
  const credential = match?.[2]?.trim() ?? '';
  if (/^bearer$/i.test(scheme)) {
    return fail('AUTH_BEARER', `Authorization uses the Token scheme, not Bearer: send ${tokenForm}`);
  }
  if (!/^token$/i.test(scheme)) {
    const joined = /^token[=:]/i.exec(scheme)?.[0];
    const hint =
      joined !== undefined
        ? `"${joined}" joins the scheme to the key; one space separates them`
        : credential === ''
          ? 'the scheme word is missing'
          : `"${scheme}" is not the scheme`;
    return fail('AUTH_SCHEME', `Authorization uses the Token scheme (${hint}): send ${tokenForm}`);
  }
  if (credential === '')
    return fail(
      'AUTH_SCHEME',
      `Authorization has the Token scheme but no API key after it (as when the variable meant to hold the key is unset or empty); send ${tokenForm}`,
    );
  if (/\s/.test(credential)) {
    return fail(
      'AUTH_SCHEME',
      `Authorization must be the word Token, one space, then the API key: send ${tokenForm}`,
    );
  }
  return ok(credential);
}

/** A refusal of the `Authorization` header, with the `WWW-Authenticate: Token` challenge (except for a repeated header). */
export const authError = (code: ApiError['code'], message: string): ApiError =>
  errorAt(code, authPath, message, code === 'AUTH_DUPLICATE' ? {} : { 'www-authenticate': 'Token' });

const fail = (code: ApiError['code'], message: string): Result<never> => failure(authError(code, message));

/** `undefined` when the Content-Type is JSON in UTF-8, else the diagnostic. */
export function checkContentType(value: HeaderValue): Diagnostic | undefined {
  if (Array.isArray(value) && value.length > 1) {
    // Content-Type is a singleton field (RFC 9110, section 8.3): which one the body is in cannot be known.
    return diagnostic(
      'HTTP_MALFORMED',
      contentTypePath,
      `the request carries ${value.length} Content-Type headers (${value.map((v) => JSON.stringify(v)).join(', ')}); send exactly one, "Content-Type: application/json"`,
    );
  }
  const sent = Array.isArray(value) ? value[0] : (value as string | undefined);
  if (sent === 'application/json' || sent === 'application/json; charset=utf-8') return undefined;
  // An empty parameter (`application/json;`) is allowed: parameters = *( OWS ";" OWS [ parameter ] ).
  const header = sent?.replace(emptyParameters, '');
  if (header === undefined || header === '')
    return unsupported('Content-Type header is missing; send "Content-Type: application/json"');
  try {
    const { type, parameters } = parseContentType(header);
    if (type === formType)
      return unsupported(
        `Content-Type is "${type}", what curl sends with -d when no Content-Type is given (and HTML forms send); the body must be sent as "Content-Type: application/json": with curl, add -H 'Content-Type: application/json'`,
      );
    if (type !== 'application/json')
      return unsupported(
        `Content-Type is "${type}"; the body must be sent as "Content-Type: application/json"`,
      );
    const charset = parameters.charset?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
      return unsupported(
        `Content-Type names charset "${charset}", but JSON over HTTP is UTF-8 (RFC 8259, section 8.1) and the mock reads every body as UTF-8; send "Content-Type: application/json" (or "application/json; charset=utf-8") with the body encoded in UTF-8`,
      );
    return undefined;
  } catch {
    return unsupported(`Content-Type "${sent}" cannot be parsed; send "Content-Type: application/json"`);
  }
}

/**
 * `undefined` when an answer's JSON body is sent as JSON (`application/json`, in UTF-8 if a charset is named), else
 * the diagnostic, speaking to the service; `sent` undefined: the answer had no Content-Type.
 */
export function checkAnswerContentType(sent: string | undefined): Diagnostic | undefined {
  const must =
    'the service must send "Content-Type: application/json", the type the document gives every answer';
  if (sent === 'application/json' || sent === 'application/json; charset=utf-8') return undefined;
  if (sent === undefined)
    return unsupported(`the answer's body is JSON sent without a Content-Type; ${must}`);
  try {
    const { type, parameters } = parseContentType(sent.replace(emptyParameters, ''));
    if (type !== 'application/json')
      return unsupported(`the answer's body is JSON sent as Content-Type "${type}"; ${must}`);
    const charset = parameters.charset?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
      return unsupported(
        `the answer's Content-Type names charset "${charset}", but JSON over HTTP is UTF-8 (RFC 8259, section 8.1); ${must} with the body in UTF-8`,
      );
    return undefined;
  } catch {
    return unsupported(`the answer's Content-Type "${sent}" cannot be parsed; ${must}`);
  }
}

const contentTypePath = '/headers/content-type';
/** The type curl gives a body sent with `-d` and no `-H 'Content-Type: ...'`. */
const formType = 'application/x-www-form-urlencoded';
const unsupported = (message: string, path = contentTypePath): Diagnostic =>
  diagnostic('UNSUPPORTED_MEDIA_TYPE', path, message);

/** Semicolons with nothing after them but another semicolon or the end (`application/json;`, `a/b;; c=d`). */
const emptyParameters = /[ \t]*;[ \t]*(?=;|$)/g;

/** `undefined` when the body is not compressed; the mock, like most JSON APIs, takes identity bodies only. */
export function checkContentEncoding(value: HeaderValue): Diagnostic | undefined {
  const header = Array.isArray(value) ? value.join(',') : (value as string | undefined);
  if (header === undefined || header.trim() === '' || header.trim().toLowerCase() === 'identity')
    return undefined;
  return unsupported(
    `Content-Encoding "${header}" is not accepted; send the JSON uncompressed`,
    '/headers/content-encoding',
  );
}

/**
 * Lower-cases header names, so the headers of any client can be checked: a plain object (Node's `req.headers` or
 * `clientRequest.getHeaders()`, axios), a `Headers` or a `Map` (fetch, undici), pairs `[[name, value], ...]`, or
 * Node's flat `rawHeaders`. A number value counts as its text; a name given twice keeps both values. Anything else
 * counts as no headers.
 */
export function lowerCaseHeaders(headers: unknown): HeaderBag {
  const out: Record<string, HeaderValue> = Object.create(null);
  for (const entry of headerEntries(headers)) {
    if (!Array.isArray(entry) || entry.length !== 2) continue;
    const [name, given] = entry as [unknown, unknown];
    if (typeof name !== 'string') continue;
    const value = typeof given === 'number' && Number.isFinite(given) ? String(given) : given;
    if (typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
      const key = name.toLowerCase();
      const previous = out[key];
      out[key] = previous === undefined ? value : [...[previous].flat(), ...[value].flat()];
    }
  }
  return out;
}

/** The entries of any of those shapes, as given: `lowerCaseHeaders` keeps the `[name, value]` pairs among them. */
function headerEntries(headers: unknown): readonly unknown[] {
  if (headers === null || typeof headers !== 'object') return [];
  if (Array.isArray(headers) && headers.every((entry) => typeof entry === 'string'))
    return Array.from({ length: Math.floor(headers.length / 2) }, (_, i) => [
      headers[2 * i],
      headers[2 * i + 1],
    ]);
  if (Array.isArray(headers)) return headers;
  const entries = (headers as { entries?: unknown }).entries;
  if (typeof entries !== 'function' || !(Symbol.iterator in headers)) return Object.entries(headers);
  try {
    return [...(entries.call(headers) as Iterable<unknown>)];
  } catch {
    return [];
  }
}
