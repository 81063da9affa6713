import { type ServerResponse, STATUS_CODES } from 'node:http';
import { type ApiError, errorBody, statusOf } from '../errors.js';
import type { Reply } from '../pipeline/answer.js';

const jsonType = 'application/json; charset=utf-8';

/** A body as sent: its JSON text and that text's Content-Length. */
export interface Payload {
  readonly text: string;
  readonly length: string;
}

export function payloadOf(body: unknown): Payload {
  const text = JSON.stringify(body);
  return { text, length: String(Buffer.byteLength(text)) };
}

/** Writes a JSON reply (as `payload` when it is already serialised) with its Content-Length; returns the text sent (undefined when nothing could be sent). */
export function send(res: ServerResponse, reply: Reply, payload?: Payload): string | undefined {
  if (res.headersSent || res.destroyed) return undefined;
  const { text, length } = payload ?? payloadOf(reply.body);
  // Node's flat [name, value, ...] form: no header object to build and walk on every answer.
  const headers = ['content-type', jsonType, 'content-length', length];
  if (reply.headers !== undefined)
    for (const [name, value] of Object.entries(reply.headers)) headers.push(name, headerText(value));
  // The reason phrase is given each time: one left from a writeHead that threw would otherwise stick.
  res.writeHead(reply.status, STATUS_CODES[reply.status] ?? 'Unknown', headers);
  res.end(text);
  return text;
}

/**
 * A header value as HTTP can carry it: printable ASCII. Header values may hold request text (an id in any script);
 * every other character is written as a JSON-style `\uXXXX` escape and a backslash as `\\`, so nothing is lost:
 * reading those two escapes back gives the text.
 */
export const headerText = (value: string): string => value.replace(escapedInHeaders, escaped);

const escapedInHeaders = /[^\x20-\x5b\x5d-\x7e]/g;
const escaped = (c: string): string =>
  c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** An HTTP/1.1 response written straight to a socket, for errors Node reports before a request exists. */
export function rawErrorResponse(error: ApiError): string {
  const payload = JSON.stringify(errorBody(error));
  const status = statusOf(error);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`;
}
