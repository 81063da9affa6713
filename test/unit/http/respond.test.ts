import { createServer, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { headerText, send } from '../../../src/http/respond.js';
import { rawRequest, sendRaw } from '../../support/rawHttp.js';

/** Reads the two escapes `headerText` writes. */
const fromHeader = (header: string): string =>
  header.replace(/\\(u[0-9a-f]{4}|\\)/g, (_, e: string) =>
    e === '\\' ? '\\' : String.fromCharCode(Number.parseInt(e.slice(1), 16)),
  );

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A node:http server on 127.0.0.1, port 0, answering each request with `respond`. */
async function serve(respond: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(respond);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('send', () => {
  it('gives an error its own reason phrase after a first answer failed to go out', async () => {
    const url = await serve((_req, res) => {
      // A header Node refuses makes writeHead throw after it set the status; the 500 that follows is sent fresh.
      expect(() => send(res, { status: 200, body: {}, headers: { 'bad name': 'x' } })).toThrow();
      send(res, { status: 500, body: { success: 0 } });
    });
    const answer = await sendRaw(url, rawRequest('GET', '/', {}));
    expect(answer.status).toBe(500);
    expect(answer.reason).toBe('Internal Server Error');
  });

  it.each([400, 401, 404, 405, 409, 413, 415, 429, 431, 500, 503])(
    'writes the reason phrase of %i',
    async (status) => {
      const url = await serve((_req, res) => send(res, { status, body: { success: 0 } }));
      expect((await sendRaw(url, rawRequest('GET', '/', {}))).reason).toBe(STATUS_CODES[status]);
    },
  );

  it('sends header values holding any Unicode text as ASCII that reads back to the text', async () => {
    const samples = ['grp-€', 'Ünïcödé', '𝒜stral', 'e\u0301', 'שלום', 'back\\slash', 'tab\there', 'ÿ', '"q"'];
    const url = await serve((req, res) => {
      const text = decodeURIComponent((req.url ?? '/').slice(1));
      send(res, { status: 200, body: {}, headers: { 'x-mock-notice': text } });
    });
    for (const text of samples) {
      const answer = await sendRaw(url, rawRequest('GET', `/${encodeURIComponent(text)}`, {}));
      const header = answer.headers['x-mock-notice'] as string;
      expect(header).toMatch(/^[\x20-\x7e]*$/);
      expect(fromHeader(header)).toBe(text);
    }
  });

  it('escapes nothing in printable ASCII but the backslash, and round-trips any string', () => {
    expect(headerText('group "a" already exists')).toBe('group "a" already exists');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string()), (text) => {
        const header = headerText(text);
        expect(header).toMatch(/^[\x20-\x7e]*$/);
        expect(fromHeader(header)).toBe(text);
      }),
      { numRuns: 2_000 },
    );
  });
});
