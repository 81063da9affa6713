import { expect, it } from 'vitest';
import { createUserGroupClient } from '../../../src/client/createUserGroupClient.js';
import type { UserGroupServiceError } from '../../../src/client/UserGroupServiceError.js';
import { providerStates } from '../../../src/contract/providerStates.js';
import { contractApiKeys } from '../../../src/contract/publishedContract.js';
import type { RequestBodies } from '../../../src/spec/types.js';
import { errorEnvelope, publishedPact, requestHeaders, token } from './terms.js';

/** The error answers a client must handle: wrong key, invalid body, unknown token, unknown id. */
export function errorInteractions(): void {
  const pact = publishedPact();
  const failure = (promise: Promise<unknown>): Promise<UserGroupServiceError> =>
    promise.then(
      () => {
        throw new Error('the call succeeded; the interaction expects an error');
      },
      (error: UserGroupServiceError) => error,
    );

  it('rejects a request with an unknown API key with 401', async () => {
    const body = { name: 'Customer A', user_group_id: 'customer-a' };
    await pact
      .addInteraction()
      .given(providerStates.noGroups)
      .uponReceiving('a get-or-create with an API key the service does not know')
      .withRequest('GET', '/api/user', (b) =>
        b.headers({ ...requestHeaders(), authorization: 'Token wrong-api-key' }).jsonBody(body),
      )
      .willRespondWith(401, (b) =>
        b
          .headers({ 'www-authenticate': 'Token' })
          .jsonBody(
            errorEnvelope('AUTH_UNKNOWN_KEY', { code: 'AUTH_UNKNOWN_KEY', path: '/headers/authorization' }),
          ),
      )
      .executeTest(async (mock) => {
        const client = createUserGroupClient({ baseUrl: mock.url, apiKey: 'wrong-api-key' });
        const error = await failure(client.getOrCreate(body));
        expect([error.status, error.code]).toEqual([401, 'AUTH_UNKNOWN_KEY']);
      });
  });

  it('rejects a body without user_group_id with 400 and a diagnostic naming the field', async () => {
    const body = { name: 'Customer A' };
    await pact
      .addInteraction()
      .given(providerStates.noGroups)
      .uponReceiving('a get-or-create whose body lacks user_group_id')
      .withRequest('GET', '/api/user', (b) => b.headers(requestHeaders()).jsonBody(body))
      .willRespondWith(400, (b) =>
        b.jsonBody(
          errorEnvelope('VALIDATION_FAILED', { code: 'MISSING_FIELD', path: '/body/user_group_id' }),
        ),
      )
      .executeTest(async (mock) => {
        const client = createUserGroupClient({ baseUrl: mock.url, apiKey: contractApiKeys.Customer });
        const invalid = body as unknown as RequestBodies['getOrCreateUserGroup'];
        const error = await failure(client.getOrCreate(invalid));
        expect([error.status, error.code]).toEqual([400, 'VALIDATION_FAILED']);
        expect(error.diagnostics[0]?.path).toBe('/body/user_group_id');
      });
  });

  it('answers 404 to a rotation with a token no group holds', async () => {
    const unknown = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    await pact
      .addInteraction()
      .given(providerStates.noGroups)
      .uponReceiving('a token rotation with a token no group holds')
      .withRequest('POST', '/api/user', (b) =>
        b.headers(requestHeaders()).jsonBody({ current_token: token(unknown) }),
      )
      .willRespondWith(404, (b) =>
        b.jsonBody(
          errorEnvelope('TOKEN_NOT_FOUND', { code: 'TOKEN_NOT_FOUND', path: '/body/current_token' }),
        ),
      )
      .executeTest(async (mock) => {
        const client = createUserGroupClient({ baseUrl: mock.url, apiKey: contractApiKeys.Customer });
        const error = await failure(client.rotateToken(unknown));
        expect([error.status, error.code]).toEqual([404, 'TOKEN_NOT_FOUND']);
      });
  });

  it('answers 404 to an update of an unknown user group id', async () => {
    const body = { user_group_id: 'unknown-group', name: 'Nobody' };
    await pact
      .addInteraction()
      .given(providerStates.noGroups)
      .uponReceiving('an update of a user group id that does not exist')
      .withRequest('PUT', '/api/user', (b) => b.headers(requestHeaders()).jsonBody(body))
      .willRespondWith(404, (b) =>
        b.jsonBody(
          errorEnvelope('GROUP_NOT_FOUND', { code: 'GROUP_NOT_FOUND', path: '/body/user_group_id' }),
        ),
      )
      .executeTest(async (mock) => {
        const client = createUserGroupClient({ baseUrl: mock.url, apiKey: contractApiKeys.Customer });
        const error = await failure(client.update(body));
        expect([error.status, error.code]).toEqual([404, 'GROUP_NOT_FOUND']);
      });
  });
}
