import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  /** The status line's reason phrase (`Not Found`). */
  readonly reason: string;
  readonly headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers as loosely typed JSON; validateResponse checks their shape
  readonly body: any;
  readonly text: string;
}

/** Sends bytes exactly as given over a socket and reads the whole answer (the server closes or ends it). */
export function rawRequest(url: string, bytes: string | Buffer, timeoutMs = 5_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer in time'));
    }, timeoutMs);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const parsed = parse(Buffer.concat(chunks).toString('utf8'));
      if (parsed !== undefined) {
        clearTimeout(timer);
        socket.destroy();
        resolve(parsed);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const parsed = parse(Buffer.concat(chunks).toString('utf8'));
      if (parsed === undefined)
        reject(new Error(`incomplete answer: ${Buffer.concat(chunks).toString('utf8')}`));
      else resolve(parsed);
    });
    socket.write(bytes);
  });
}

/** The answer once its Content-Length worth of body has arrived. */
function parse(text: string): RawAnswer | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = text.slice(end + 4);
  const length = Number(headers['content-length'] ?? Number.NaN);
  if (Number.isNaN(length) || Buffer.byteLength(body) < length) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return {
    status: Number(statusLine.split(' ')[1]),
    reason: statusLine.split(' ').slice(2).join(' '),
    headers,
    body: json,
    text: body,
  };
}

/** An HTTP/1.1 request with the given headers and body; Content-Length is added unless `headers` sets framing. */
export function httpText(
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body?: string | Buffer,
): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers))
    for (const v of [value].flat()) lines.push(`${name}: ${v}`);
  const framed = Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h));
  if (body !== undefined && !framed) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), Buffer.from(body ?? '')]);
}
