import { expect, it } from 'vitest';
import { validateRequest, validateResponse } from '../../src/index.js';

// Your code: how your application builds the get-or-create request.
const buildGetOrCreate = (apiKey: string, customer: { id: string; name: string }) => ({
  method: 'GET',
  path: '/api/user',
  headers: { Authorization: `Token ${apiKey}`, 'Content-Type': 'application/json' },
  body: { name: customer.name, user_group_id: customer.id },
});

it('builds a get-or-create request that matches the document', () => {
  const request = buildGetOrCreate('my-api-key', { id: 'customer-a', name: 'Customer A' });
  expect(validateRequest(request).diagnostics).toEqual([]);
});

it('stubs only responses the service can send', () => {
  // The canned answer your unit tests feed your client: it must not drift from the document.
  const rotated = {
    success: 1,
    user_group: {
      team_id: 7,
      token: 'f'.repeat(64),
      name: 'Customer A',
      provided_id: 'customer-a',
      api_environment_tag: 'Customer',
    },
  };
  const verdict = validateResponse({ method: 'POST', path: '/api/user', status: 200, body: rotated });
  expect(verdict.diagnostics).toEqual([]);
});
