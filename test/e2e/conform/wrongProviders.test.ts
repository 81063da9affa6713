import { afterEach, describe, expect, it } from 'vitest';
import { conformProvider } from '../../../src/conform/conformProvider.js';
import { call, jsonHeaders, useMocks } from '../../support/http.js';
import { useProxies } from '../../support/proxy.js';
import { type Front, keys, startFront, wrongProviders } from '../../support/wrongProviders.js';

const mocks = useMocks();
const proxies = useProxies();
const fronts: Front[] = [];
afterEach(async () => {
  await Promise.all(fronts.splice(0).map((front) => front.close()));
});

const declared = [`${keys.Customer}:Customer`, `${keys.Testing}:Testing`];

/** A service: the mock itself (`make` undefined), or a front on it breaking one rule. */
async function service(make?: (typeof wrongProviders)[number]['make']): Promise<string> {
  const mock = await mocks();
  if (make === undefined) return mock.url;
  const front = await startFront(mock, make());
  fronts.push(front);
  return front.url;
}

/**
 * An ordinary client's traffic: create two groups, read one, update it, read it again (with the body it always
 * sends), rotate its token, reuse the old token, then the same id through the Testing key, created and updated.
 */
async function ordinaryClient(url: string): Promise<void> {
  const api = async (method: string, body: unknown, key: string = keys.Customer) =>
    (await call(url, method, '/api/user', { headers: jsonHeaders(key), body })).body;
  const a = { user_group_id: 'Customer-A', name: 'Customer A', properties: { plan: 'pro', seats: 5 } };
  await api('GET', a);
  await api('GET', { user_group_id: 'Customer-B', name: 'Customer B' });
  await api('GET', a);
  await api('PUT', { user_group_id: 'Customer-A', name: 'Customer A2', properties: { plan: 'basic' } });
  const read = await api('GET', a);
  const old = read.user_group.token;
  await api('POST', { current_token: old });
  await api('POST', { current_token: old });
  await api('GET', a, keys.Testing);
  await api('PUT', { user_group_id: 'Customer-A', name: 'Test A' }, keys.Testing);
}

describe('conform', () => {
  it('finds no divergence in the mock', async () => {
    const result = await conformProvider({
      targets: [await service()],
      apiKeys: declared,
      runs: 50,
      seed: 7,
    });
    expect([result.outcome, result.counterexample]).toEqual(['conforms', undefined]);
  });

  it.each(wrongProviders)('catches $name with a shrunk sequence of at most 5 calls', async ({ make }) => {
    const result = await conformProvider({
      targets: [await service(make)],
      apiKeys: declared,
      runs: 200,
      seed: 7,
    });
    expect(result.outcome).toBe('diverges');
    const calls = result.counterexample?.calls ?? [];
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.length).toBeLessThanOrEqual(5);
    expect(calls.at(-1)?.verdict.divergences.length).toBeGreaterThan(0);
  });
});

describe('the proxy, fed an ordinary client’s traffic', () => {
  const flagged = async (target: string, apiKeys?: readonly string[]) => {
    const proxy = await proxies({
      target,
      ...(apiKeys === undefined
        ? {}
        : {
            apiKeys: apiKeys.map((k) => ({
              key: k.split(':')[0] as string,
              environment: k.split(':')[1] as 'Customer',
            })),
          }),
    });
    await ordinaryClient(proxy.url);
    return (await proxy.requests({ fault: 'provider' })).flatMap((entry) =>
      entry.diagnostics.map((d) => d.code),
    );
  };

  it('flags nothing on the mock, with the keys declared or not', async () => {
    const url = await service();
    expect(await flagged(url)).toEqual([]);
    expect(await flagged(await service(), declared)).toEqual([]);
  });

  it.each(wrongProviders)(
    'catches $name when it can see it from the traffic',
    async ({ make, seenByTraffic }) => {
      const codes = await flagged(await service(make));
      if (seenByTraffic) expect(codes.filter((code) => code.startsWith('PROVIDER_'))).not.toEqual([]);
      else expect(codes).toEqual([]);
    },
  );

  it.each(wrongProviders)(
    'catches $name when --api-key declares the keys’ environments',
    async ({ make }) => {
      const codes = await flagged(await service(make), declared);
      expect(codes.filter((code) => code.startsWith('PROVIDER_'))).not.toEqual([]);
    },
  );
});
