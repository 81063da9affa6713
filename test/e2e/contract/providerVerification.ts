import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GroupStateParams, providerStates } from '../../../src/contract/providerStates.js';
import { contractFile } from '../../../src/contract/publishedContract.js';
import { createMockServer, type MockServer } from '../../../src/index.js';
import { customerKey } from '../../support/http.js';
import { verifyInChild } from './verifyInChild.js';

/**
 * The Pact Verifier replays the contract against the fake, started in-process; provider states are set up
 * through the fake's HTTP admin API (`POST /__admin/reset`, `POST /__admin/groups`), as for any provider.
 * The verifier runs in a child process, so that its report is read here rather than printed.
 */
export function providerVerification(): void {
  let server: MockServer;
  beforeAll(async () => {
    server = await createMockServer({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => server.close());

  it('honours every interaction of the published contract, verified in a tenant it removes afterwards', async () => {
    const kept = await server.seedGroup({ environment: 'Customer', user_group_id: 'kept', name: 'Kept' });
    const { result, report } = await verifyInChild({ providerBaseUrl: server.url });
    // `interactions.failed` names each interaction that did not pass; the report says how.
    expect(result, report).toMatchObject({
      outcome: 'honoured',
      interactions: { failed: [] },
      skipped: [],
      warnings: [],
    });
    expect(result.interactions?.passed).toBe(interactions().length);
    expect(report).toContain('Verifying a pact between user-group-client and user-group-service');
    for (const description of interactions()) expect(report).toContain(`  ${description} (`);
    expect(report.match(/has a matching body \(OK\)/g)).toHaveLength(interactions().length);
    // Pact's proxy calls util._extend, which Node 22 and later report as DEP0060 (Node 20 does not).
    expect(report).not.toContain('DEP0060');
    const tenant = /in tenant (t-\S+),/.exec(result.setUp ?? '')?.[1] ?? 'none';
    await expect(server.deleteTenant(tenant)).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
    expect(await server.groups()).toEqual([kept]);
  });

  it('sets states up through a Pact state-change URL when one is given, and skips Testing without its key', async () => {
    const seen: string[] = [];
    const stateSetup = await stateChangeServer(async ({ state, params }) => {
      seen.push(state);
      await server.reset();
      if (state !== providerStates.groupExists) return {};
      const seeded = await server.seedGroup({ ...(params as GroupStateParams), token: undefined });
      return { token: seeded.token };
    });
    try {
      const { result, report } = await verifyInChild({
        providerBaseUrl: server.url,
        apiKey: customerKey,
        stateSetupUrl: stateSetup.url,
      });
      expect(result).toMatchObject({ outcome: 'honoured', interactions: { failed: [] } });
      expect(result.skipped).toEqual([
        'an update of a known user group with a Testing key (needs --testing-api-key)',
      ]);
      expect(new Set(seen)).toEqual(new Set(Object.values(providerStates)));
      expect(report.match(/has a matching body \(OK\)/g)).toHaveLength(interactions().length - 1);
    } finally {
      await new Promise((resolve) => stateSetup.server.close(resolve));
    }
  });

  it('takes a state as set up when the state-change URL answers 200 with a text rather than JSON', async () => {
    const stateSetup = await stateChangeServer(async ({ state, params }) => {
      await server.reset();
      if (state !== providerStates.groupExists) return 'OK';
      await server.seedGroup(params as GroupStateParams);
      return 'OK';
    });
    try {
      const { result } = await verifyInChild({
        providerBaseUrl: server.url,
        apiKey: customerKey,
        stateSetupUrl: stateSetup.url,
      });
      expect(result).toMatchObject({ outcome: 'honoured', interactions: { failed: [] } });
      expect(result.interactions?.passed).toBe(interactions().length - 1);
    } finally {
      await new Promise((resolve) => stateSetup.server.close(resolve));
    }
  });

  it('gives no verdict, counting no interaction, when a state cannot be set up during the run', async () => {
    let calls = 0;
    const stateSetup = await stateChangeServer(async ({ state, params }) => {
      // Each state is set up once before the run; the fourth call is the second of the run.
      if (++calls === 4) return undefined;
      await server.reset();
      if (state !== providerStates.groupExists) return {};
      const seeded = await server.seedGroup({ ...(params as GroupStateParams), token: undefined });
      return { token: seeded.token };
    });
    try {
      const { result } = await verifyInChild({
        providerBaseUrl: server.url,
        apiKey: customerKey,
        stateSetupUrl: stateSetup.url,
      });
      expect(result.outcome).toBe('could-not-run');
      expect(result.interactions).toBeUndefined();
      expect(result.reason).toMatch(
        new RegExp(
          `^a provider state could not be set up during the run, so its results say nothing: the state setup URL ${stateSetup.url} answered 500 for state "[a-z ]+" \\(disk full\\); it must answer 2xx once the state is set up: look at its log`,
        ),
      );
      expect(calls).toBeGreaterThan(4);
    } finally {
      await new Promise((resolve) => stateSetup.server.close(resolve));
    }
  });
}

/** The descriptions of the published contract's interactions. */
function interactions(): string[] {
  const contract = JSON.parse(readFileSync(contractFile, 'utf8')) as {
    interactions: { description: string }[];
  };
  return contract.interactions.map((interaction) => interaction.description);
}

/**
 * A Pact state-change endpoint: `POST { state, params, action }`, answering the values to inject, a text with 200
 * (a state set up, nothing to inject), or 500 when `setUp` resolves with nothing.
 */
async function stateChangeServer(
  setUp: (change: { state: string; params: unknown }) => Promise<{ token?: string } | string | undefined>,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on('end', async () => {
      const values = await setUp(JSON.parse(text) as { state: string; params: unknown });
      if (values === undefined) res.writeHead(500, { 'content-type': 'text/plain' }).end('disk full');
      else if (typeof values === 'string') res.writeHead(200, { 'content-type': 'text/plain' }).end(values);
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(values));
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/states` };
}
