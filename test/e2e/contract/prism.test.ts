import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/index.js';
import { claimedFigures, readmeClaims } from '../../support/documentedFigures.js';
import { type PrismMock, startPrism } from '../../support/prism.js';
import { prismCorpus } from './prismCorpus.js';
import { knownDifferences } from './prismDifferences.js';
import {
  accepted,
  auth,
  customerKey,
  invalid,
  type Probe,
  refused,
  seeded,
  type Verdict,
  verdictOf,
} from './prismProbes.js';

/** Sends one probe; a server that does not answer within a second gets the verdict `no-answer`. */
async function send(baseUrl: string, probe: Probe): Promise<Verdict> {
  const payload = probe.raw ?? (probe.json === undefined ? undefined : JSON.stringify(probe.json));
  const headers = {
    ...(probe.headers ?? auth(`Token ${customerKey}`)),
    ...(payload === undefined ? {} : { 'content-length': String(Buffer.byteLength(payload)) }),
  };
  try {
    const response = await request(`${baseUrl}${probe.path ?? '/api/user'}`, {
      method: probe.method as 'GET',
      headers,
      ...(payload === undefined ? {} : { body: payload }),
      headersTimeout: 1_000,
      bodyTimeout: 1_000,
    });
    await response.body.dump();
    return verdictOf(response.statusCode);
  } catch {
    return 'no-answer';
  }
}

/**
 * Prism mocks the same document statelessly. Each probe goes to both; the verdicts must agree with each other
 * and with the expected one, except where Prism is known to differ, which is asserted as the difference.
 */
describe('Prism and our mock, one corpus', () => {
  let prism: PrismMock;
  let ours: MockServer;
  beforeAll(async () => {
    [prism, ours] = await Promise.all([startPrism(), createMockServer({ host: '127.0.0.1', port: 0 })]);
  }, 40_000);
  afterAll(async () => {
    await Promise.all([prism?.stop(), ours?.close()]);
  });

  /** Our mock is stateful: each probe meets exactly the seeded group, so valid PUT and POST find it. */
  async function verdicts(probe: Probe): Promise<{ prism: Verdict; ours: Verdict }> {
    await ours.reset();
    await ours.seedGroup(seeded);
    return { prism: await send(prism.url, probe), ours: await send(ours.url, probe) };
  }

  it('sends exactly as many requests as README.md states', () => {
    expect(prismCorpus.length).toBe(claimedFigures(readmeClaims.prismRequests)[0]);
  });

  it.each(accepted.map((p) => [p.method, p.name, p] as const))(
    '%s with %s is accepted by both',
    async (_m, _n, probe) => {
      expect(await verdicts(probe)).toEqual({ prism: 'accepted', ours: 'accepted' });
    },
  );

  it.each(invalid.map((p) => [p.method, p.name, p] as const))(
    '%s with %s is rejected as invalid by both',
    async (_m, _n, probe) => {
      expect(await verdicts(probe)).toEqual({ prism: 'invalid', ours: 'invalid' });
    },
  );

  it.each(refused.map((p) => [p.method, p.name, p] as const))(
    '%s with %s is refused by both',
    async (_m, _n, probe) => {
      expect(await verdicts(probe)).toEqual({ prism: probe.verdict, ours: probe.verdict });
    },
  );

  it.each(knownDifferences.map((p) => [p.method, p.name, p] as const))(
    '%s with %s: Prism is known to differ',
    async (_m, _n, probe) => {
      // The reason is part of the record: see prismDifferences.ts.
      expect(probe.reason).not.toBe('');
      expect(await verdicts(probe)).toEqual({ prism: probe.prism, ours: probe.ours });
    },
  );
});
