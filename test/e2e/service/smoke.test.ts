import { afterEach, describe, expect, it } from 'vitest';
import { validateResponse } from '../../../src/index.js';
import { startMock } from '../../support/http.js';

describe('the mock, end to end', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it('creates a group on the first GET and returns it unchanged on the second', async () => {
    const mock = await startMock();
    close = mock.close;
    const first = await mock.api('GET', { name: 'Customer A', user_group_id: 'customer-a' });
    expect(first.status).toBe(200);
    expect(first.body.new_user_group).toBe(true);
    expect(
      validateResponse({ method: 'GET', path: '/api/user', status: 200, body: first.body }).diagnostics,
    ).toEqual([]);
    const second = await mock.api('GET', { name: 'Customer A', user_group_id: 'customer-a' });
    expect(second.body.new_user_group).toBe(false);
    expect(second.body.user_group.token).toBe(first.body.user_group.token);
  });
});
