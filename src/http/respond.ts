import type { ServerResponse } from 'node:http';
import { type ApiError, errorBody, statusOf } from '../errors.js';

export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export const errorReply = (error: ApiError): Reply => ({
  status: statusOf(error),
  body: errorBody(error),
  ...(error.headers ? { headers: error.headers } : {}),
});

const jsonType = 'application/json; charset=utf-8';

/** Texts of frozen bodies: a frozen body cannot change, so it is serialised once (held only as long as the body). */
const texts = new WeakMap<object, string>();

function serialize(body: unknown): string {
  if (body === null || typeof body !== 'object') return JSON.stringify(body);
  let text = texts.get(body);
  if (text === undefined) {
    text = JSON.stringify(body);
    if (Object.isFrozen(body)) texts.set(body, text);
  }
  return text;
}

/** Writes a JSON reply with its Content-Length; returns the text sent (undefined when nothing could be sent). */
export function send(res: ServerResponse, reply: Reply): string | undefined {
  if (res.headersSent || res.destroyed) return undefined;
  const payload = serialize(reply.body);
  // Node's flat [name, value, ...] form: no header object to build and walk on every answer.
  const headers = ['content-type', jsonType, 'content-length', String(Buffer.byteLength(payload))];
  if (reply.headers !== undefined)
    for (const [name, value] of Object.entries(reply.headers)) headers.push(name, value);
  res.writeHead(reply.status, headers);
  res.end(payload);
  return payload;
}

/** An HTTP/1.1 response written straight to a socket, for errors Node reports before a request exists. */
export function rawErrorResponse(error: ApiError): string {
  const payload = JSON.stringify(errorBody(error));
  const status = statusOf(error);
  return `HTTP/1.1 ${status} ${statusText[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`;
}

const statusText: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};
