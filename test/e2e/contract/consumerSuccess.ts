import { MatchersV3 } from '@pact-foundation/pact';
import { expect, it } from 'vitest';
import { createUserGroupClient } from '../../../src/client/createUserGroupClient.js';
import { providerStates } from '../../../src/contract/providerStates.js';
import { contractApiKeys } from '../../../src/contract/publishedContract.js';
import { knownGroup, publishedPact, requestHeaders, teamId, token } from './terms.js';

const { fromProviderState } = MatchersV3;
const tokenPattern = /^[0-9a-f]{64}$/;

/** The success of each operation, written with the reference client. */
export function successInteractions(): void {
  const pact = publishedPact();
  const group = knownGroup();

  it('creates a group that does not exist yet', async () => {
    const body = {
      name: 'Customer B',
      user_group_id: 'customer-b',
      mapping: { '40': '213' },
      properties: { region: 'EU' },
    };
    await pact
      .addInteraction()
      .given(providerStates.noGroups)
      .uponReceiving('a get-or-create for a new user group id')
      .withRequest('GET', '/api/user', (b) => b.headers(requestHeaders()).jsonBody(body))
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: 1,
          new_user_group: true,
          user_group: {
            team_id: teamId(),
            token: token(),
            name: body.name,
            provided_id: body.user_group_id,
            properties: body.properties,
          },
        }),
      )
      .executeTest(async (mock) => {
        const client = createUserGroupClient({ baseUrl: mock.url, apiKey: contractApiKeys.Customer });
        const answer = await client.getOrCreate(body);
        expect(answer.new_user_group).toBe(true);
        expect(answer.user_group.token).toMatch(tokenPattern);
      });
  });

  it('returns an existing group unchanged', async () => {
    await pact
      .addInteraction()
      .given(providerStates.groupExists, { ...group })
      .uponReceiving('a get-or-create for a known user group id')
      .withRequest('GET', '/api/user', (b) =>
        b.headers(requestHeaders()).jsonBody({ name: group.name, user_group_id: group.user_group_id }),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: 1,
          new_user_group: false,
          user_group: {
            team_id: teamId(),
            token: token(),
            name: group.name,
            provided_id: group.user_group_id,
            properties: null,
          },
        }),
      )
      .executeTest(async (mock) => {
        const client = createUserGroupClient({ baseUrl: mock.url, apiKey: contractApiKeys.Customer });
        const answer = await client.getOrCreate({ name: group.name, user_group_id: group.user_group_id });
        expect(answer).toMatchObject({
          new_user_group: false,
          user_group: { provided_id: group.user_group_id },
        });
      });
  });

  for (const environment of ['Customer', 'Testing'] as const) {
    it(`updates the properties of a group in the ${environment} environment`, async () => {
      const seeded = knownGroup(environment);
      const body = { user_group_id: seeded.user_group_id, properties: { region: 'US' } };
      await pact
        .addInteraction()
        .given(providerStates.groupExists, { ...seeded })
        .uponReceiving(`an update of a known user group with a ${environment} key`)
        .withRequest('PUT', '/api/user', (b) => b.headers(requestHeaders(environment)).jsonBody(body))
        .willRespondWith(200, (b) =>
          b.jsonBody({
            success: 1,
            user_group: {
              team_id: teamId(),
              token: token(),
              name: seeded.name,
              provided_id: seeded.user_group_id,
              properties: body.properties,
              api_environment_tag: environment,
            },
          }),
        )
        .executeTest(async (mock) => {
          const client = createUserGroupClient({ baseUrl: mock.url, apiKey: contractApiKeys[environment] });
          const answer = await client.update(body);
          expect(answer.user_group).toMatchObject({
            properties: { region: 'US' },
            api_environment_tag: environment,
          });
        });
    });
  }

  it('rotates the token of a group, given its current token', async () => {
    await pact
      .addInteraction()
      .given(providerStates.groupExists, { ...group })
      .uponReceiving('a token rotation with the current token of a known group')
      .withRequest('POST', '/api/user', (b) =>
        // A Pact provider-state expression, not a template string: the state handler's `token` replaces it.
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Pact expression syntax
        b.headers(requestHeaders()).jsonBody({ current_token: fromProviderState('${token}', group.token) }),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: 1,
          user_group: {
            team_id: teamId(),
            token: token('9b8a7c6d5e4f30211a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081'),
            name: group.name,
            provided_id: group.user_group_id,
            api_environment_tag: 'Customer',
          },
        }),
      )
      .executeTest(async (mock) => {
        const client = createUserGroupClient({ baseUrl: mock.url, apiKey: contractApiKeys.Customer });
        const answer = await client.rotateToken(group.token);
        expect(answer.user_group.token).toMatch(tokenPattern);
        expect(answer.user_group.token).not.toBe(group.token);
      });
  });
}
