import { describe, expect, it } from 'vitest';
import { validateResponse } from '../../../src/index.js';
import { responseFixtures } from '../../support/fixtures.js';

const { valid, invalid } = responseFixtures();

describe('validateResponse', () => {
  it.each(valid)('accepts $name', ({ response }) => {
    expect(validateResponse(response).diagnostics).toEqual([]);
  });

  it.each(invalid)('rejects $name with $expect.code at $expect.path', ({ response, expect: expected }) => {
    const result = validateResponse(response);
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContainEqual(expect.objectContaining(expected));
  });

  it('accepts extra fields only in lenient mode, and still checks the named ones', () => {
    const body = {
      success: 1,
      new_user_group: false,
      request_id: 'abc',
      user_group: {
        team_id: 1,
        token: 'a'.repeat(64),
        name: 'A',
        provided_id: 'a',
        properties: null,
        created_at: 'x',
      },
    };
    const response = { method: 'GET', path: '/api/user', status: 200, body };
    expect(validateResponse(response).diagnostics.map((d) => d.code)).toEqual([
      'UNKNOWN_FIELD',
      'UNKNOWN_FIELD',
    ]);
    expect(validateResponse(response, { allowAdditionalProperties: true }).ok).toBe(true);
    const wrong = { ...response, body: { ...body, user_group: { ...body.user_group, token: 5 } } };
    expect(validateResponse(wrong, { allowAdditionalProperties: true }).diagnostics[0]?.path).toBe(
      '/body/user_group/token',
    );
  });
});
