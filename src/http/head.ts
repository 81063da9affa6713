import type { IncomingMessage } from 'node:http';
import type { ArrivedRequest, PipelineRequest } from '../pipeline/pipelineRequest.js';

/**
 * The headers a request to the service is judged by, read in one pass over `rawHeaders`. Node builds
 * `req.headers` lazily, name by name, on first access; the service path never touches it. Values follow Node's
 * rules for `req.headers` (first value kept for single-valued fields, list fields joined with ", "), except
 * `authorization`, where every value is kept: a repeated Authorization is a client mistake to report.
 */
export type RequestHead = Pick<PipelineRequest, keyof ArrivedRequest | 'path'> & {
  readonly host: string | undefined;
};

export function readHead(req: IncomingMessage): RequestHead {
  let host: string | undefined;
  const authorization: string[] = [];
  let contentLength: number | undefined;
  let contentType: string | undefined;
  let contentTypes: string[] | undefined;
  let contentEncoding: string | undefined;
  let transferEncoding: string | undefined;
  let userAgent: string | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    switch (name.length) {
      case 4:
        if (host === undefined && named(name, 'host', 'Host')) host = value;
        break;
      case 10:
        if (userAgent === undefined && named(name, 'user-agent', 'User-Agent')) userAgent = value;
        break;
      case 12:
        if (named(name, 'content-type', 'Content-Type')) {
          if (contentType === undefined) contentType = value;
          else contentTypes = [...(contentTypes ?? [contentType]), value];
        }
        break;
      case 13:
        if (named(name, 'authorization', 'Authorization')) authorization.push(value);
        break;
      case 14:
        if (contentLength === undefined && named(name, 'content-length', 'Content-Length'))
          contentLength = decimal(value);
        break;
      case 16:
        if (named(name, 'content-encoding', 'Content-Encoding'))
          contentEncoding = contentEncoding === undefined ? value : `${contentEncoding}, ${value}`;
        break;
      case 17:
        if (named(name, 'transfer-encoding', 'Transfer-Encoding'))
          transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
        break;
    }
  }
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  return {
    path: mark === -1 ? url : url.slice(0, mark),
    host,
    authorization,
    contentLength,
    contentType: contentTypes ?? contentType,
    contentEncoding,
    query: mark === -1 ? undefined : url.slice(mark + 1),
    bodySent: transferEncoding !== undefined || (contentLength ?? 0) > 0,
    userAgent,
  };
}

/**
 * A Content-Length value (digits: Node's parser refuses anything else) as a number, read digit by digit: Number()
 * would first hash the string as a possible array index.
 */
function decimal(digits: string): number {
  if (digits.length > 15) return Number(digits);
  let value = 0;
  for (let i = 0; i < digits.length; i++) value = value * 10 + (digits.charCodeAt(i) - 0x30);
  return value;
}

/** Whether a header name as sent is `lower`; the two usual spellings are compared before any lower-casing. */
const named = (name: string, lower: string, title: string): boolean =>
  name === lower || name === title || name.toLowerCase() === lower;
