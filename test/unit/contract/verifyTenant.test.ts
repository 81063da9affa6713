import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { invalidRequestsOf } from '../../../src/contract/verifyTenant.js';

const tenant = { id: 't-1', api_keys: { Customer: 'c'.repeat(32), Testing: 't'.repeat(32) } };
const entry = (fault: string, status: number) => ({
  method: 'GET',
  path: '/api/user',
  status,
  fault,
  diagnostics: [{ code: 'MISSING_FIELD', path: '/body/user_group/token', message: 'no token' }],
});

let close: (() => void) | undefined;
afterEach(() => close?.());

/** A provider whose journal lists `entries` (the shape `GET /__admin/requests?invalid=true` answers). */
async function journalOf(entries: unknown[]): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(entries));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('invalidRequestsOf', () => {
  it("names the provider's part of an invalid request, and both sides when both broke the contract", async () => {
    const url = await journalOf([entry('client', 400), entry('provider', 200), entry('both', 200)]);
    expect(await invalidRequestsOf(url, tenant)).toEqual([
      'GET /api/user 400: MISSING_FIELD at /body/user_group/token: no token',
      "GET /api/user 200 (the provider's fault): MISSING_FIELD at /body/user_group/token: no token",
      "GET /api/user 200 (the client's and the provider's fault): MISSING_FIELD at /body/user_group/token: no token",
    ]);
  });
});
