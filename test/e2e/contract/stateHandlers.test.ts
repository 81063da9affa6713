import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMockServer, type MockServer, providerStates } from '../../../src/index.js';
import { useTempDir } from '../../support/tempDir.js';
import { pactVerifierInChild } from './verifyInChild.js';

process.env.PACT_DO_NOT_TRACK = 'true';
const tempDir = useTempDir();

/** A consumer's pact whose first interaction forgets the Authorization header; both start from no groups. */
function forgetfulPact(file: string): string {
  const request = (headers: Record<string, string>) => ({
    method: 'GET',
    path: '/api/user',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: { name: 'Customer A', user_group_id: 'customer-a' },
  });
  const interaction = (description: string, headers: Record<string, string>) => ({
    description,
    providerStates: [{ name: providerStates.noGroups }],
    request: request(headers),
    response: { status: 200 },
  });
  const pact = {
    consumer: { name: 'forgetful-app' },
    provider: { name: 'user-group-service' },
    interactions: [
      interaction('a get-or-create without its key', {}),
      interaction('a get-or-create with its key', { Authorization: 'Token dev-customer-key' }),
    ],
    metadata: { pactSpecification: { version: '3.0.0' } },
  };
  writeFileSync(file, JSON.stringify(pact));
  return file;
}

let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer();
});
afterAll(() => mock.close());

it("keeps the mock's diagnostics of every interaction through the state set-ups of a Pact run", async () => {
  // Pact runs in a child so that its failure report, expected here, is asserted rather than printed.
  const { passed, report } = await pactVerifierInChild({
    providerBaseUrl: mock.url,
    pactUrls: [forgetfulPact(join(tempDir(), 'forgetful-app.json'))],
    stateHandlersOf: mock.url,
  });
  expect(passed).toBe(false);
  expect(report).toMatch(/a get-or-create without its key[\s\S]*has status code 200 \(FAILED\)/);
  expect(report).toMatch(/There were 1 pact failures/);
  // The second interaction's state was set up after the first ran: the first's diagnostic is still there.
  const invalid = await mock.requests({ invalid: true });
  expect(invalid.map((entry) => [entry.status, entry.diagnostics.map((d) => d.code)])).toEqual([
    [401, ['AUTH_MISSING']],
  ]);
  expect((await mock.requests()).map((entry) => entry.status)).toEqual([401, 200]);
});
