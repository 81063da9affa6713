import { describe, expect, it } from 'vitest';
import { createVerifyTenant } from '../../../src/contract/verifyTenant.js';
import { useMocks } from '../../support/http.js';
import { useProxies } from '../../support/proxy.js';

const mocks = useMocks();
const proxies = useProxies();

describe('createVerifyTenant', () => {
  it('makes a tenant on a mock', async () => {
    const mock = await mocks();
    expect(await createVerifyTenant(mock.url)).toMatchObject({
      kind: 'created',
      tenant: { id: expect.any(String) },
    });
  });

  it('refuses a validating proxy, naming its target and the two ways to verify', async () => {
    const mock = await mocks();
    const proxy = await proxies({ target: mock.url });
    const target = new URL(mock.url).origin;
    expect(await createVerifyTenant(proxy.url)).toEqual({
      kind: 'refused',
      reason: `${proxy.url} is a validating proxy in front of ${target} (its GET /__admin/health says mode: proxy): it keeps no tenants or groups, so verify cannot set the provider states up through it. Verify the service itself (--provider-base-url ${target}), or pass --state-setup-url URL and --api-key KEY to set the states up on that service while the requests go through the proxy`,
    });
  });
});
