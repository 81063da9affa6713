import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MatchersV3, PactV4, Verifier } from '@pact-foundation/pact';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  contractStateHandlers,
  createMockServer,
  createUserGroupClient,
  type MockServer,
  providerStates,
} from '../../src/index.js';

process.env.PACT_DO_NOT_TRACK = 'true';
const pactDir = mkdtempSync(join(tmpdir(), 'pacts-')); // a fresh folder: Pact merges into existing files
const pact = new PactV4({ consumer: 'my-app', provider: 'user-group-service', dir: pactDir });

let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer();
});
afterAll(async () => {
  await mock.close();
  rmSync(pactDir, { recursive: true, force: true });
});

// 1. Consumer side: your client against Pact's mock, in the published contract's terms (states, matchers).
it('gets or creates the group of a customer', async () => {
  const body = { name: 'Customer A', user_group_id: 'customer-a' };
  await pact
    .addInteraction()
    .given(providerStates.noGroups)
    .uponReceiving('a get-or-create for a new customer')
    .withRequest('GET', '/api/user', (b) =>
      b.headers({ Authorization: MatchersV3.regex('^Token \\S+$', 'Token dev-customer-key') }).jsonBody(body),
    )
    .willRespondWith(200, (b) =>
      b.jsonBody({
        success: 1,
        new_user_group: true,
        user_group: {
          team_id: MatchersV3.integer(1),
          token: MatchersV3.regex('^[0-9a-f]{64}$', 'a'.repeat(64)),
          name: 'Customer A',
          provided_id: 'customer-a',
          properties: null,
        },
      }),
    )
    .executeTest(async (server) => {
      // Replace this with your own client, pointed at server.url.
      const client = createUserGroupClient({ baseUrl: server.url, apiKey: 'dev-customer-key' });
      const answer = await client.getOrCreate(body);
      expect(answer.user_group.token).toHaveLength(64);
    });
});

// 2. Provider side: your pact replayed against the mock; its /__admin API sets up the states.
it('asks only what the User Group Service answers', async () => {
  const verifier = new Verifier({
    providerBaseUrl: mock.url,
    pactUrls: [join(pactDir, 'my-app-user-group-service.json')],
    stateHandlers: contractStateHandlers(mock.url),
    logLevel: 'error',
  });
  await expect(verifier.verifyProvider()).resolves.toBeDefined();
});
